import MemoCRDT

// The notes model's invariant checks (`checkInvariants()`) use the same helper as the text
// CRDT's; it is a copy rather than a `package` export so that it does not clash with the
// `require` of other targets in the package (the fuzz checks have their own).

/// Throws an `InvariantViolation` with `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    if !condition { throw InvariantViolation(message()) }
}
