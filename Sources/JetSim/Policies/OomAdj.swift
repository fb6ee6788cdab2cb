import SimKernel

// Android's oom_score_adj values and ActivityManager's cached slots: what android-lmk
// orders by and what the Android manager gives each candidate (`EvictionCandidate.oomAdj`).
/// oom_score_adj values as ActivityManager's ProcessList assigns them.
public enum OomAdj {
    /// FOREGROUND_APP_ADJ: the app in front.
    public static let foreground = 0
    /// VISIBLE_APP_ADJ: visible but not in front (not modelled: no split screen).
    public static let visible = 100
    /// PERCEPTIBLE_APP_ADJ: e.g. background music (an active background mode here).
    public static let perceptible = 200
    /// SERVICE_ADJ: an application service (executing in the background here).
    public static let service = 500
    /// HOME_APP_ADJ: the launcher (not an app of the model).
    public static let home = 600
    /// PREVIOUS_APP_ADJ: the app the user was in before the current one.
    public static let previous = 700
    /// CACHED_APP_MIN_ADJ ... CACHED_APP_MAX_ADJ: cached apps, older higher.
    public static let cachedMin = 900
    public static let cachedMax = 999
    /// PERCEPTIBLE_RECENT_FOREGROUND_APP_ADJ: a foreground service of an app that was
    /// top less than TOP_TO_FGS_GRACE_DURATION ago ("fg-service-act").
    public static let perceptibleRecentForeground = 50
    /// CACHED_APP_IMPORTANCE_LEVELS (5): empty processes' sequence starts this far above
    /// the cached one's, and each slot is twice it wide.
    public static let cachedImportanceLevels = 5
    /// The first slot of the empty processes' sequence: CACHED_APP_MIN_ADJ +
    /// CACHED_APP_IMPORTANCE_LEVELS (905; `sFirstCachedAdj` in MockingOomAdjusterTests).
    public static let cachedEmptyMin = cachedMin + cachedImportanceLevels
    /// OomAdjuster.mNumSlots: ((CACHED_APP_MAX_ADJ - CACHED_APP_MIN_ADJ + 1) >> 1) /
    /// CACHED_APP_IMPORTANCE_LEVELS = 10.
    public static let cachedSlots = ((cachedMax - cachedMin + 1) >> 1) / cachedImportanceLevels

    /// OomAdjuster.assignCachedAdjIfNecessary with USE_TIERED_CACHED_ADJ off (the
    /// default, ActivityManagerConstants DEFAULT_USE_TIERED_CACHED_ADJ = false): walking
    /// the LRU list from the most recent, the processes of one sequence (cached with
    /// activities from 900, empty from 905) take `factor` = ceil(count / 10) (at least
    /// 1) to a slot, each slot 10 above the last, and 999 from the eleventh slot on.
    /// `rank`: how many of the sequence are more recent (0: the most recent).
    @inline(__always) public static func cachedSlot(rank: Int, count: Int, first: Int) -> Int {
        let factor = Swift.max(1, (count + cachedSlots - 1) / cachedSlots)
        let slot = rank / factor
        return slot < cachedSlots ? first + 2 * cachedImportanceLevels * slot : cachedMax
    }
}
