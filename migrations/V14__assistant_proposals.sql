-- What the assistant proposed: each valid preview of a write tool, so that
-- a proposal is booked once. `state` moves from pending to saved (with the
-- booked record's id in `record_id`) or to discarded, never back.
-- `message_id` is the assistant message whose tool call `tool_call_id`
-- made it; `arguments` (JSON) are what Confirm sends to the tool's action.
CREATE TABLE assistant_proposals (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL REFERENCES conversation_messages(id) ON DELETE CASCADE,
    tool_call_id    TEXT NOT NULL DEFAULT '',
    tool            TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'saved', 'discarded')),
    record_id       TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX assistant_proposals_conversation ON assistant_proposals(conversation_id, created_at);
CREATE INDEX assistant_proposals_user ON assistant_proposals(user_id);
CREATE INDEX assistant_proposals_message ON assistant_proposals(message_id);
