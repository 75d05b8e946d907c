package kafkaconf

// Bounds on the files kbench reads for client settings: a properties file
// holds settings (a few KiB even with inline certificates), a key or trust
// store a few certificates. Reading without a bound let a wrong path such
// as /dev/zero fill the memory until Go's runtime gave up. infile.Read
// checks them.
const (
	MaxPropertiesFile = 1 << 20  // bytes
	MaxStoreFile      = 16 << 20 // bytes
)
