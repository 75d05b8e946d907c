package kafkaconf

// Has reports whether props set key (to any value).
func Has(props []Prop, key string) bool {
	for _, p := range props {
		if p.Key == key {
			return true
		}
	}
	return false
}
