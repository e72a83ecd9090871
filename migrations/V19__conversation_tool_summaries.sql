-- A tool message of a read tool keeps the line the person was shown when it
-- ran ("Konten angesehen"), so that a reopened conversation shows the same.
ALTER TABLE conversation_messages ADD COLUMN summary TEXT;
