-- The assistant's stored messages keep what the model needs to replay a
-- conversation: the tool calls an assistant message made (JSON
-- [{"id","name","arguments"}]), the call a tool message answers and its
-- tool's name, and the order of the messages within the conversation
-- (several are written in the same millisecond).
ALTER TABLE conversation_messages ADD COLUMN tool_calls TEXT;
ALTER TABLE conversation_messages ADD COLUMN tool_call_id TEXT;
ALTER TABLE conversation_messages ADD COLUMN tool_name TEXT;
ALTER TABLE conversation_messages ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
DROP INDEX conversation_messages_conversation;
CREATE INDEX conversation_messages_conversation ON conversation_messages(conversation_id, seq);
