package workload

type TopicPartition struct {
	Topic     string
	Partition int32
}
