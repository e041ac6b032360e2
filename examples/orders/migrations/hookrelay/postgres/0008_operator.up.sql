-- hookrelay's migration 0008_operator.sql, its tables named as hookrelay.events is.
CREATE SCHEMA IF NOT EXISTS "hookrelay";
CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
);

-- 0008: what an operator does during an incident — pause a destination,
-- skip a stuck delivery, tell replay rounds apart.

-- A destination listed here is paused: claims pass it by, its deliveries
-- wait. Pauses and resumes are also written to the audit log (replays).
CREATE TABLE hookrelay.paused_destinations (
	destination text        NOT NULL PRIMARY KEY,
	paused_at   timestamptz NOT NULL,
	actor       text        NOT NULL
);

-- The replay round an attempt was made in: the delivery's replay_count at
-- the time. A trigger records it, so that every writer of attempts gets it
-- right without knowing of it; a replay never re-arms a delivery that is
-- processing, so the count cannot change between the claim and the
-- attempt's row.
ALTER TABLE hookrelay.attempts ADD COLUMN round integer NOT NULL DEFAULT 0;

CREATE FUNCTION hookrelay.attempts_round() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.round := coalesce((SELECT replay_count FROM hookrelay.deliveries WHERE id = NEW.delivery_id), 0);
	RETURN NEW;
END;
$$;

CREATE TRIGGER attempts_round BEFORE INSERT ON hookrelay.attempts
FOR EACH ROW EXECUTE FUNCTION hookrelay.attempts_round();

INSERT INTO hookrelay.schema_migrations (version) VALUES (8) ON CONFLICT (version) DO NOTHING;
