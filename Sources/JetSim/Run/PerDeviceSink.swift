import Foundation
import SimKernel
import Synchronization

/// Receives per-device rows chunk by chunk (from any thread) and writes them in
/// device order.
public final class PerDeviceSink: Sendable {
    let state: Mutex<(next: Int, pending: [Int: String])>
    let write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void) {
        state = Mutex((0, [:]))
        self.write = write
    }

    func deliver(chunk: Int, rows: String) {
        state.withLock { s in
            s.pending[chunk] = rows
            while let r = s.pending.removeValue(forKey: s.next) {
                write(r)
                s.next += 1
            }
        }
    }
}
