//! Pacing in Redis, shared by every instance: one script call per send takes the line's next
//! turn (the key holds when it starts, in microseconds by Redis's clock) and answers how long
//! to wait for it; a hold moves that time on.

use std::time::Duration;

use parley_domain::model::{LineId, Pace};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};

use crate::runtime::limits::RedisConfig;

const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(250);

/// ARGV[1] 'turn' takes a turn of ARGV[2] µs and returns the wait (µs); 'hold' moves the next
/// turn to at least ARGV[2] µs from now and returns 0. The key expires once its time has passed.
const SCRIPT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local next = tonumber(redis.call('GET', KEYS[1]))
if not next or next < now then next = now end
local wait = 0
if ARGV[1] == 'turn' then
  wait = next - now
  next = next + tonumber(ARGV[2])
else
  next = math.max(next, now + tonumber(ARGV[2]))
end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.max(1, math.ceil((next - now) / 1000)))
return wait
";

pub struct RedisPacer {
    connection: ConnectionManager,
    script: Script,
    prefix: String,
}

impl RedisPacer {
    /// Connects lazily; must run inside a tokio runtime (the connection's task is spawned there).
    pub fn new(redis: &RedisConfig) -> Result<Self, String> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err("no tokio runtime to run the Redis connection on".into());
        }
        let client = Client::open(redis.url.as_str()).map_err(|e| e.to_string())?;
        let settings = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, settings).map_err(|e| e.to_string())?;
        Ok(Self { connection, script: Script::new(SCRIPT), prefix: redis.key_prefix.clone() })
    }

    async fn call(&self, line: &LineId, action: &str, micros: u64) -> Result<Duration, String> {
        let mut connection = self.connection.clone();
        let key = format!("{}pace:{}", self.prefix, line.as_str());
        let wait: i64 = self.script.key(key).arg(action).arg(micros).invoke_async(&mut connection).await.map_err(|e| e.to_string())?;
        Ok(Duration::from_micros(wait.max(0) as u64))
    }

    /// Takes `line`'s next turn: how long until it starts.
    pub async fn turn(&self, line: &LineId, pace: Pace) -> Result<Duration, String> {
        self.call(line, "turn", pace.interval().as_micros() as u64).await
    }

    /// No turn on `line` starts for `pause`.
    pub async fn hold(&self, line: &LineId, pause: Duration) -> Result<(), String> {
        self.call(line, "hold", pause.as_micros() as u64).await.map(|_| ())
    }
}
