-- The application's own tables. IF NOT EXISTS adopts the tables an earlier
-- version of this application created at start, before it had migrations.
-- payments has no unique key on the event id and orders.paid_cents is a
-- running sum: only the handler's transaction keeps a payment from counting
-- twice.
CREATE TABLE IF NOT EXISTS orders (
	id         text PRIMARY KEY,
	paid_cents bigint NOT NULL DEFAULT 0,
	status     text NOT NULL DEFAULT 'open'
);

CREATE TABLE IF NOT EXISTS payments (
	event_id     text NOT NULL,
	order_id     text NOT NULL,
	amount_cents bigint NOT NULL,
	received_at  text NOT NULL
);
