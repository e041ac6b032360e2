package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// errInterrupted marks a job the operator interrupted.
var errInterrupted = errors.New("interrupted")

// reportReplay prints what an ended replay job did. A job that did not
// run to its end is an error that says exactly what was re-armed: the
// deliveries of the selected events up to its last event id, none after.
func reportReplay(w io.Writer, j adminwire.Job) (adminwire.ReplayResult, error) {
	res := adminwire.ReplayResult{}
	if j.Replay != nil {
		res = *j.Replay
	}
	if j.State == adminwire.JobDone {
		fmt.Fprintf(w, "re-armed %s (%d matched, %d in flight left alone)\n", counted(res.Rearmed, deliveryNoun, deliveriesNoun), res.Matched, res.InFlight)
		return res, nil
	}
	what := "nothing was re-armed: it stopped before its first batch"
	if j.LastEventID != "" {
		what = fmt.Sprintf("re-armed %d of %d deliveries (%d in flight left alone): those of the selected events up to %s, in event id order; "+
			"the later events' deliveries were not touched. The audit log has this replay (hookrelay audit)",
			res.Rearmed, j.Total, res.InFlight, j.LastEventID)
	}
	return res, jobStopped(j, what)
}

// reportBackfill prints what an ended backfill job did, or, for one that
// did not run to its end, says what was created.
func reportBackfill(w io.Writer, j adminwire.Job, dest string) (adminwire.BackfillResult, error) {
	res := adminwire.BackfillResult{}
	if j.Backfill != nil {
		res = *j.Backfill
	}
	if j.State == adminwire.JobDone {
		fmt.Fprintf(w, "created %s to %s\n", counted(res.Created, deliveryNoun, deliveriesNoun), dest)
		return res, nil
	}
	what := "nothing was created: it stopped before its first page"
	if j.LastEventID != "" {
		what = fmt.Sprintf("created %d of %d deliveries to %s: for the window's events up to %s, in event id order; "+
			"running the same backfill again creates the rest (it only creates what is missing)", res.Created, j.Total, dest, j.LastEventID)
	}
	return res, jobStopped(j, what)
}

// jobStopped is the error of a job that did not run to its end.
func jobStopped(j adminwire.Job, what string) error {
	if j.State == adminwire.JobFailed {
		return fmt.Errorf("%s %s stopped on an error (%s); %s", j.Kind, j.ID, j.Error, what)
	}
	return fmt.Errorf("%w: %s", errInterrupted, what)
}
