package faults

// Manual makes a kind a command of its own for a local cluster's brokers,
// `kbench cluster NAME --broker N`, and says what that command prints.
type Manual struct {
	// Short is the command's help line.
	Short string
	// Done is what the broker is after it: "broker 2 killed (pid 41)".
	Done string
	// Waiting, if set, is said before an action that waits for the broker
	// ("restarting broker 2 ...; waiting until it has joined"); the line
	// after it says how long it took.
	Waiting string
	// Undo, if set, is the command that undoes it, and UndoSays how the
	// line says so: "start it again with: kbench cluster restart ...".
	Undo, UndoSays string
}
