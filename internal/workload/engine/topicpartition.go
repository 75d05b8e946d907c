package engine

type TopicPartition struct {
	Topic     string
	Partition int32
}
