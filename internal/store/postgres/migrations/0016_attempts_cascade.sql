-- 0016: the attempts of deleted deliveries are deleted by a statement
-- trigger instead of a foreign key.
--
-- The foreign key from attempts to deliveries checked every attempt row as
-- it was inserted: one lookup of its delivery, with a KEY SHARE lock, per
-- row, run through SPI. In a drain that check was a tenth of the server's
-- CPU. It guarded nothing that the one writer of attempts does not: the
-- statement that records outcomes inserts an attempt only for a delivery
-- it has just updated, whose row it holds locked until it commits, so a
-- concurrent delete either waits for that commit and then deletes the
-- attempt with the delivery, or deletes the delivery first and the
-- outcome finds no row to update and records nothing.
--
-- What the key did on delete, the trigger does: whatever deletes
-- deliveries (pruning by cascade from events, or anything else), their
-- attempts go in the same transaction. The trigger's DELETE takes its own
-- snapshot, after the deleting statement has waited for any outcome
-- holding those rows, so it sees that outcome's attempts.
ALTER TABLE attempts DROP CONSTRAINT attempts_delivery_id_fkey;

CREATE FUNCTION deliveries_delete_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM old_rows);
	RETURN NULL;
END
$$;

CREATE TRIGGER deliveries_delete_attempts AFTER DELETE ON deliveries
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION deliveries_delete_attempts();
