package plan

import "context"

// builtinTypes are the built-in kinds as the kinds' table (study.Kinds)
// hands them to the parser: the plan's own tests read plans with them.
func builtinTypes() []Option {
	return []Option{WithType(Produce, ProduceRule), WithType(Consume, ConsumeRule),
		WithType(ShareConsume, ShareConsumeRule), WithType(EndToEnd, EndToEndRule),
		WithType(RoundTrip, RoundTripRule)}
}

func testParse(file string, data []byte, sets []string, opts ...Option) (*Plan, error) {
	return Parse(file, data, sets, append(builtinTypes(), opts...)...)
}

func testLoad(ctx context.Context, path string, sets []string, opts ...Option) (*Plan, error) {
	return Load(ctx, path, sets, append(builtinTypes(), opts...)...)
}

func testLoadOMB(ctx context.Context, workloadPath, driverPath string, sets []string) (*OMB, error) {
	return LoadOMB(ctx, workloadPath, driverPath, sets, builtinTypes()...)
}
