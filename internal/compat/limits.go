package compat

// MaxClients bounds --producers and --threads, as a plan's clients are
// bounded: each client opens its own connections to every broker, so
// thousands exhaust the broker's file descriptors and kbench's memory long
// before they add load. Run several kbench processes for more.
const MaxClients = 1000

// MaxRecordSize bounds --record-size, as a plan's message.size is bounded:
// 1 GiB, past anything max.request.size and the broker's message.max.bytes
// can usefully be raised to.
const MaxRecordSize = 1 << 30
