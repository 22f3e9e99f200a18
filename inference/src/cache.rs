//! The one bounded cache of answers, shared by every part that keeps them
//! (the tracer's state trees, the model's answers, the language server's
//! answers): least recently used first out, at most a fixed number of
//! entries, with hits and misses counted for logs and benchmarks.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A least-recently-used cache of at most `capacity` entries, safe to share
/// between threads. Values are cloned out (keep them behind an `Arc`).
pub struct Cache<K: Hash + Eq, V: Clone> {
    entries: Mutex<lru::LruCache<K, V>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// Hits and misses so far, and the entries held now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: usize,
    pub capacity: usize,
}

impl<K: Hash + Eq, V: Clone> Cache<K, V> {
    /// A cache of at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Cache<K, V> {
        let capacity = NonZeroUsize::new(capacity.max(1)).expect("at least one");
        Cache {
            entries: Mutex::new(lru::LruCache::new(capacity)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, lru::LruCache<K, V>> {
        // A panic elsewhere never leaves an entry half written: keep serving.
        self.entries
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The value for `key`, now the most recently used; counted as a hit or
    /// a miss.
    pub fn get(&self, key: &K) -> Option<V> {
        let found = self.lock().get(key).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// The value for `key` without counting or reordering.
    pub fn peek(&self, key: &K) -> Option<V> {
        self.lock().peek(key).cloned()
    }

    /// Keeps `value` for `key`, dropping the least recently used entry when
    /// full.
    pub fn insert(&self, key: K, value: V) {
        self.lock().put(key, value);
    }

    pub fn clear(&self) {
        self.lock().clear();
    }

    pub fn stats(&self) -> CacheStats {
        let entries = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: entries.len(),
            capacity: entries.cap().get(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entry_goes_first_and_hits_are_counted() {
        let cache = Cache::new(2);
        cache.insert("a", 1);
        cache.insert("b", 2);
        assert_eq!(cache.get(&"a"), Some(1)); // "b" is now the oldest
        cache.insert("c", 3);
        assert_eq!(cache.get(&"b"), None);
        assert_eq!(cache.get(&"a"), Some(1));
        assert_eq!(cache.peek(&"c"), Some(3));
        assert_eq!(
            cache.stats(),
            CacheStats {
                hits: 2,
                misses: 1,
                entries: 2,
                capacity: 2
            }
        );
        cache.clear();
        assert_eq!(cache.stats().entries, 0);
    }

    #[test]
    fn a_zero_capacity_still_holds_one_entry() {
        let cache = Cache::new(0);
        cache.insert(1, "one");
        assert_eq!(cache.get(&1), Some("one"));
    }
}
