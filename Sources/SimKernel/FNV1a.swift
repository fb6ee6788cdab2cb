/// FNV-1a, 64 bits (Fowler, Noll, Vo): the hash of a shard's inputs, of a usage trace
/// and of replayed app names. One definition, so that every hash of the same bytes
/// agrees.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x100_0000_01b3

    /// The hash of `bytes`, continuing from `h` (to hash a stream in blocks).
    @inlinable public static func hash<S: Sequence>(_ bytes: S, from h: UInt64 = offsetBasis) -> UInt64 where S.Element == UInt8 {
        var h = h
        for b in bytes { h = (h ^ UInt64(b)) &* prime }
        return h
    }

    /// The hash of a string's UTF-8 bytes.
    @inlinable public static func hash(_ s: String) -> UInt64 { hash(s.utf8) }
}
