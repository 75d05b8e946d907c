package faults

// MaxBounces bounds a bounce's times.
const MaxBounces = 100

// bounce restarts a broker times times in a row, as Kafka's system tests
// bounce brokers; on a remote cluster it runs the restart command.
var bounce = Kind{
	Name:    Bounce,
	Effect:  Effect{Away: true, Back: true},
	Params:  []Param{{Name: "times", Kind: CountParam, Min: 1, Max: MaxBounces, Default: int64(1), Does: "repeats"}},
	Command: Restart,
	Broker:  restartBroker,
	Repeat:  "times",
}
