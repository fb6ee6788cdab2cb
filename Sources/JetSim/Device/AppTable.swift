import SimKernel

/// A device's app records (`Device.apps`): SimKernel's `UncheckedArray`, whose
/// element writes skip `ContiguousArray`'s per-write uniqueness check (a call into the
/// runtime, about 4 a default-workload event) and bounds check. The device makes it
/// unique once a run (`Device.beginRun`), or, outside a run, at the top of each event
/// (`Device.handle`, `Device.handleInput`: every public mutating entry that reaches a
/// write; `reset` and the table's own growing methods make it unique themselves), so
/// a write never lands in a buffer a copy of the device shares; debug builds (the
/// tests) assert it at every write. Indices are the app numbers the device hands out
/// (0..<count), checked in debug builds.
public typealias AppTable = UncheckedArray<AppRuntime>
