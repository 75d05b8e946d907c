package share

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kadmin"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload/engine"
)

// shareGroupHeartbeat is the API key of ShareGroupHeartbeat (KIP-932).
const shareGroupHeartbeat = 76

// shareGroupsNeed is what a cluster needs to run share groups, said after
// why this one does not.
const shareGroupsNeed = "Share groups need Apache Kafka 4.1 or newer with the share.version feature enabled " +
	"(on by default from 4.2; on 4.1: kafka-features upgrade --feature share.version=1), and group.share.enable not false"

// errNoShareGroups is the user's error of a cluster without share groups.
func errNoShareGroups(why string) error {
	return userr.Errorf("the cluster does not run share groups: %s. %s", why, shareGroupsNeed)
}

// refusedShareGroups is why a broker that lists the share APIs still runs
// no share groups.
const refusedShareGroups = "its brokers refuse share-group requests (UNSUPPORTED_VERSION: the share.version feature is 0, or group.share.enable is false)"

// checkShareGroups says clearly when the cluster has no share groups,
// before any member tries to join. A broker too old lists no
// ShareGroupHeartbeat API; a broker with share groups turned off lists
// them all the same (Kafka 4.3.1 with share.version=0) and answers every
// share request UNSUPPORTED_VERSION, which franz-go's share consumer
// retries for ever: members then waited for records that never came. A
// ShareGroupDescribe of the group, answered through the same gate as the
// heartbeat and changing nothing, tells them apart.
func checkShareGroups(ctx context.Context, cl *kgo.Client, group string) error {
	actx, cancel := context.WithTimeout(ctx, engine.AdminTimeout)
	defer cancel()
	resp, err := kadmin.Await(actx, func(ctx context.Context) (*kmsg.ApiVersionsResponse, error) {
		return kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	})
	if err != nil {
		return fmt.Errorf("share consumer: ask the broker's API versions: %w", err)
	}
	listed := false
	for _, k := range resp.ApiKeys {
		listed = listed || k.ApiKey == shareGroupHeartbeat
	}
	if !listed {
		return errNoShareGroups("its broker lists no ShareGroupHeartbeat API")
	}
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = []string{group}
	described, err := kadmin.Await(actx, func(ctx context.Context) (*kmsg.ShareGroupDescribeResponse, error) {
		return req.RequestWith(ctx, cl)
	})
	if errors.Is(err, kerr.UnsupportedVersion) {
		return errNoShareGroups(refusedShareGroups)
	}
	if err != nil {
		return nil // the members will say what is wrong; this check only looks for the gate
	}
	for _, g := range described.Groups {
		if g.ErrorCode == kerr.UnsupportedVersion.Code {
			return errNoShareGroups(refusedShareGroups)
		}
	}
	return nil
}

// shareGroupsRefused reports whether a share member's error says the
// cluster runs no share groups: the broker answered its heartbeat
// UNSUPPORTED_VERSION (share groups turned off after the run's check).
func shareGroupsRefused(err error) bool {
	var gs *kgo.ErrGroupSession
	return errors.As(err, &gs) && errors.Is(gs.Err, kerr.UnsupportedVersion)
}
