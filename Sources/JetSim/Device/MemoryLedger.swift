import SimKernel

// The device's core: the memory ledger (available + resident + reserve == RAM).
extension DeviceCore {
    /// Moves an app's resident memory to `kb`, keeping the accounting exact.
    @inline(__always)
    mutating func setResident(_ app: Int32, _ kb: Int64) {
        availableKB += apps[Int(app)].replaceResident(kb)
    }

    /// What a suspended app keeps resident after the device's compression.

    @inline(__always) func suspendedResidentKB(_ p: Int) -> Int64 { packedKB(plainKB: profiles[p].suspendedKB) }

    /// `plainKB` of suspended memory after the device's compression.
    @inline(__always) func packedKB(plainKB: Int64) -> Int64 {
        params.suspendedCompressionRatio <= 1 ? plainKB
            : Int64((Double(plainKB) / params.suspendedCompressionRatio).rounded())
    }
}
