package study

import (
	"github.com/kbench/kbench/internal/brokercost"
	"github.com/kbench/kbench/internal/linkuse"
	"github.com/kbench/kbench/internal/result"
)

// pathSamplers follow what lies between kbench and the brokers' records
// over a repeat: the devices under a local cluster's data, its network
// proxies, or the client host's interface toward a remote cluster.
type pathSamplers struct {
	disks   *brokercost.DiskSampler
	proxies *brokercost.Sampler
	link    *linkuse.Sampler
}

func startPath(env RepeatEnv) pathSamplers {
	var p pathSamplers
	if env.DataDirs != nil {
		if dirs := env.DataDirs(); len(dirs) > 0 {
			p.disks = brokercost.StartDisks(dirs, brokerSampleEvery)
		}
	}
	if env.ProxyPID != nil && env.ProxyPID() > 0 {
		pid := env.ProxyPID
		p.proxies = brokercost.Start(func() map[int]int {
			if n := pid(); n > 0 {
				return map[int]int{0: n}
			}
			return nil
		}, brokerSampleEvery)
	}
	if env.Toward != "" {
		// A cluster on this host, or no route: nothing to measure.
		if iface, err := linkuse.Toward(env.Toward); err == nil {
			p.link, _ = linkuse.Start(iface)
		}
	}
	return p
}

// stop writes what the samplers measured into rep.
func (p pathSamplers) stop(rep *result.Repeat) {
	if p.disks != nil {
		rep.Disks, rep.DisksUnjudged = p.disks.Stop()
	}
	if p.link != nil {
		rep.Network = p.link.Stop()
	}
	if p.proxies != nil {
		if rep.Network == nil {
			rep.Network = &result.Network{}
		}
		var cpu float64
		for _, c := range p.proxies.Stop() {
			cpu += c.CPUSeconds
		}
		rep.Network.ProxyCPUSeconds = &cpu
	}
}
