#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The hash of a file's bytes, read in 1 MiB blocks (memory does not grow with the
    /// file: a usage trace is hashed as it is replayed, streamed); nil if it cannot be
    /// read. Equal to `hash` of the file's text.
    public static func hash(fileAt path: String) -> UInt64? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        let block = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
        defer { block.deallocate() }
        var h = offsetBasis
        while true {
            let n = fread(block.baseAddress!, 1, block.count, f)
            h = hash(block[0..<n], from: h)
            if n < block.count { return ferror(f) != 0 ? nil : h }
        }
    }

    /// `x` as 16 hex digits (how every hash is printed).
    public static func hex(_ x: UInt64) -> String {
        let s = String(x, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
