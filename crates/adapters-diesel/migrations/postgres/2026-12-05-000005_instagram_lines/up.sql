-- Lines on every platform: an Instagram account beside WhatsApp numbers. A webhook names its
-- line by the platform's id of the account (WhatsApp's phone number id, Instagram's account
-- id), so that column becomes account_id; it stays unique across channel types, as Meta's ids
-- are unique across its platforms. waba_id is '' on a line that has no business account.
ALTER TABLE lines RENAME COLUMN phone_number_id TO account_id;
ALTER TABLE lines ADD COLUMN channel_type TEXT NOT NULL DEFAULT 'whatsapp';
-- Which platform a stored webhook delivery came from: the decoder that reads its body.
ALTER TABLE webhook_events ADD COLUMN platform TEXT NOT NULL DEFAULT 'whatsapp';
-- When the contact deleted a message on the platform (Instagram reports it): the message is kept.
ALTER TABLE messages ADD COLUMN deleted_at BIGINT;
