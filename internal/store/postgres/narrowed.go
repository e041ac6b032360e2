package postgres

import (
	"fmt"
	"strings"
)

// On a partitioned event log a statement that finds deliveries by their
// ids alone reads every partition's index of ids: a partition's rows are
// those of its events' period, and nothing ties an id to one. Where the
// caller knows the deliveries' events, the statements below also compare
// event_id, the partition key, with them, so that the partitions of
// other periods are pruned before they are read (at execution, on a
// generic plan). Unpartitioned, the statements are left as they are:
// their rows are found by primary key alone, as their comments say.
var (
	// claimRowsKeyed is claimRows, the events of the deliveries $4 in $6.
	claimRowsKeyed = narrowed(claimRows, "WHERE c.id = ANY($4::bigint[])", " AND c.event_id = ANY($6::text[])")

	// completeDeliveriesKeyed is completeDeliveries, the events of the
	// deliveries $1 in $15.
	completeDeliveriesKeyed = narrowed(completeDeliveries, "WHERE hookrelay.deliveries.id = ANY($1::bigint[])",
		" AND hookrelay.deliveries.event_id = ANY($15::text[])")
)

// narrowed returns statement with cond added after its one occurrence of
// where.
func narrowed(statement, where, cond string) string {
	if strings.Count(statement, where) != 1 {
		panic(fmt.Sprintf("narrowed: %q is not once in the statement", where))
	}
	return strings.Replace(statement, where, where+cond, 1)
}
