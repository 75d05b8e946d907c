package kafkaconf

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/userr"
)

// classicOnly are the consumer properties a share consumer has no use for:
// share groups have no offsets to reset or commit, no assignor the client
// picks, no static membership and no session of the classic protocol.
var classicOnly = []string{
	"auto.offset.reset", "enable.auto.commit", "auto.commit.interval.ms", "group.instance.id",
	"group.protocol", "group.remote.assignor", "partition.assignment.strategy",
	"session.timeout.ms", "heartbeat.interval.ms", "isolation.level",
}

// ShareOpts returns the client options of a share consumer: Opts without
// the classic group's settings. The caller adds the topics, kgo.ShareGroup
// and MaxPollRecords as kgo.ShareMaxRecords (Java's share consumer sends
// max.poll.records as each ShareFetch's MaxRecords). A classic-only property the user set is an error that names it
// (Java's share consumer refuses them too).
func (c *Consumer) ShareOpts() ([]kgo.Opt, error) {
	var bad []string
	for _, k := range classicOnly {
		if c.explicit(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		p := c.prop(bad[0], "")
		return nil, userr.New(propError(p, fmt.Sprintf("applies to classic consumer groups, not share groups (also set: %v)", bad),
			"leave it out; a share group's start is the group config share.auto.offset.reset"))
	}
	saved := c.GroupID
	c.GroupID = "" // Opts adds kgo.DisableAutoCommit for a group, which share groups refuse
	opts, err := c.Opts()
	c.GroupID = saved
	if err != nil {
		return nil, err
	}
	// Opts sets the classic start offsets and group timers; kgo ignores
	// them for a share group.
	return opts, nil
}

// ShareSettings are the settings of a share consumer, as a result's
// config lists them: Settings without the classic group's (classicOnly),
// which a share consumer neither takes nor uses. The share drop-in's
// config listed group.protocol, auto.offset.reset, enable.auto.commit and
// partition.assignment.strategy at their classic defaults.
func (c *Consumer) ShareSettings() map[string]string {
	s := c.Settings()
	for _, k := range classicOnly {
		delete(s, k)
	}
	return s
}
