package workload

type topicPartition struct {
	topic     string
	partition int32
}
