//! A media file's body on its way to the client. Its response went out when the headers did
//! (the request has left the in-flight count by then), so a download that ends short would go
//! unseen: this stream counts the bytes sent and, when it is done, records how it ended in
//! `parley_media_downloads_total{outcome}` and, when it was cut, a warning naming the message.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::web::Bytes;
use futures_util::stream::{BoxStream, Stream, StreamExt};
use parley_domain::model::MessageId;
use parley_domain::ports::PlatformError;

use crate::runtime::metrics::{DownloadOutcome, Metrics};

/// The body stream of one media download, observed.
pub struct MediaDownload {
    body: BoxStream<'static, Result<Vec<u8>, PlatformError>>,
    message: MessageId,
    /// What the platform announced, when it did.
    length: Option<u64>,
    sent: u64,
    /// Set when the platform's stream ended (`None`: it did not, yet) or failed (`Some(Some(why))`).
    ended: Option<Option<String>>,
    metrics: Arc<Metrics>,
    shutting_down: Box<dyn Fn() -> bool + Send>,
}

impl MediaDownload {
    /// `shutting_down` tells, when the body is dropped before its end, whether the shutdown
    /// deadline is what dropped it.
    pub fn new(
        body: BoxStream<'static, Result<Vec<u8>, PlatformError>>,
        message: MessageId,
        length: Option<u64>,
        metrics: Arc<Metrics>,
        shutting_down: Box<dyn Fn() -> bool + Send>,
    ) -> Self {
        Self { body, message, length, sent: 0, ended: None, metrics, shutting_down }
    }
}

impl Stream for MediaDownload {
    type Item = Result<Bytes, actix_web::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended.is_some() {
            return Poll::Ready(None);
        }
        match self.body.poll_next_unpin(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(chunk))) => {
                self.sent += chunk.len() as u64;
                Poll::Ready(Some(Ok(Bytes::from(chunk))))
            }
            Poll::Ready(Some(Err(e))) => {
                let why = e.to_string();
                self.ended = Some(Some(why.clone()));
                // The status line went out long ago: the connection is closed mid-body.
                Poll::Ready(Some(Err(actix_web::error::ErrorBadGateway(why))))
            }
            Poll::Ready(None) => {
                self.ended = Some(None);
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for MediaDownload {
    fn drop(&mut self) {
        let (message, sent, length) = (self.message.as_str(), self.sent, self.length);
        let outcome = match self.ended.take() {
            Some(None) => DownloadOutcome::Complete,
            Some(Some(error)) => {
                tracing::warn!(message, bytes_sent = sent, length, error, "media download cut: the platform failed mid-stream");
                DownloadOutcome::Cut
            }
            None if (self.shutting_down)() => {
                tracing::warn!(message, bytes_sent = sent, length, "media download cut by the shutdown deadline");
                DownloadOutcome::Cut
            }
            None => {
                tracing::info!(message, bytes_sent = sent, length, "media download abandoned: the client went away");
                DownloadOutcome::Abandoned
            }
        };
        self.metrics.observe_media_download(outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::stream;

    fn download(chunks: Vec<Result<Vec<u8>, PlatformError>>, metrics: &Arc<Metrics>, shutting_down: bool) -> MediaDownload {
        MediaDownload::new(
            stream::iter(chunks).boxed(),
            MessageId::new("msg_1".to_string()),
            Some(10),
            metrics.clone(),
            Box::new(move || shutting_down),
        )
    }

    fn count(metrics: &Metrics, outcome: &str) -> u64 {
        metrics.media_downloads(outcome)
    }

    #[tokio::test]
    async fn a_download_whose_platform_fails_mid_stream_is_counted_as_cut() {
        let metrics = Arc::new(Metrics::new());
        let failed = PlatformError::Unavailable { message: "connection reset".into() };
        let mut body = download(vec![Ok(b"12345".to_vec()), Err(failed), Ok(b"never".to_vec())], &metrics, false);
        assert_eq!(body.next().await.unwrap().unwrap(), Bytes::from_static(b"12345"));
        assert!(body.next().await.unwrap().is_err(), "the failure reaches actix, which closes the connection");
        assert!(body.next().await.is_none(), "nothing after the failure");
        assert_eq!(body.sent, 5);
        drop(body);
        assert_eq!((count(&metrics, "cut"), count(&metrics, "complete")), (1, 0));
    }

    #[tokio::test]
    async fn a_download_dropped_by_the_shutdown_deadline_is_cut_and_by_the_client_abandoned() {
        let metrics = Arc::new(Metrics::new());
        let mut body = download(vec![Ok(b"12345".to_vec()), Ok(b"67890".to_vec())], &metrics, true);
        body.next().await.unwrap().unwrap();
        drop(body);
        assert_eq!(count(&metrics, "cut"), 1);
        let mut body = download(vec![Ok(b"12345".to_vec()), Ok(b"67890".to_vec())], &metrics, false);
        body.next().await.unwrap().unwrap();
        drop(body);
        assert_eq!((count(&metrics, "cut"), count(&metrics, "abandoned")), (1, 1));
    }

    #[tokio::test]
    async fn a_download_read_to_its_end_is_complete() {
        let metrics = Arc::new(Metrics::new());
        let body = download(vec![Ok(b"12345".to_vec()), Ok(b"67890".to_vec())], &metrics, true);
        let chunks: Vec<_> = body.collect().await;
        assert_eq!(chunks.len(), 2);
        assert_eq!((count(&metrics, "complete"), count(&metrics, "cut")), (1, 0), "complete, even during a shutdown");
    }
}
