-- 0015: the statement that inserts an attempt sets its replay round
-- itself. The trigger of 0008 rewrote every attempt row just after its
-- insert, a second write of each; insertAttempt is the only writer of
-- attempts.
DROP TRIGGER attempts_round;
