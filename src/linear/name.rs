//! Dimension names.
//!
//! Every layout names its input dimensions (`register`, `lane`, `warp`, `block`, `offset`, …)
//! and its output dimensions (`dim0`, `dim1`, …). Names are compared and cloned on every
//! operation, so [`DimName`] keeps short names (up to 23 bytes, which covers every name a
//! GPU compiler uses) inline and is `Copy`; a longer name is interned once per process.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Mutex, OnceLock};

const INLINE_CAPACITY: usize = 23;

/// The name of an input or output dimension of a [`LinearLayout`](crate::linear::LinearLayout).
///
/// Behaves like a `&str` (it dereferences to one) and is `Copy`: names of up to 23 bytes —
/// every name a GPU compiler uses — are stored inline; a longer name is interned once per
/// process (as Triton interns every name in its MLIR context) and referred to by pointer.
///
/// ```
/// use linear_layout::linear::DimName;
/// let lane = DimName::from("lane");
/// assert_eq!(&*lane, "lane");
/// assert_eq!(lane, DimName::from(String::from("lane")));
/// assert_eq!(lane.to_string(), "lane");
/// ```
#[derive(Clone, Copy)]
pub struct DimName(Repr);

#[derive(Clone, Copy)]
enum Repr {
    Inline(Inline),
    Interned(&'static str),
}

/// An inline name: its length in byte 0, then the bytes, zero-padded; word-aligned so a name
/// is copied and compared as whole machine words.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(8))]
struct Inline([u8; INLINE_CAPACITY + 1]);

/// Names longer than the inline capacity, each stored once for the life of the process.
fn intern(s: &str) -> &'static str {
    static LONG_NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let set = LONG_NAMES.get_or_init(|| Mutex::new(HashSet::new()));
    // A poisoned lock still holds a consistent set: inserts are the only writes.
    let mut set = set.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match set.get(s) {
        Some(&name) => name,
        None => {
            let name: &'static str = Box::leak(s.to_owned().into_boxed_str());
            set.insert(name);
            name
        }
    }
}

impl DimName {
    /// The name as a string slice.
    ///
    /// ```
    /// # use linear_layout::linear::DimName;
    /// assert_eq!(DimName::from("warp").as_str(), "warp");
    /// ```
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes were copied from a `&str`, so this never fails.
            Repr::Inline(_) => std::str::from_utf8(self.as_bytes()).unwrap_or_default(),
            Repr::Interned(s) => s,
        }
    }

    /// `dim{k}`, the standard name of tensor dimension `k`, made without allocating.
    ///
    /// ```
    /// # use linear_layout::linear::DimName;
    /// assert_eq!(DimName::dim(12).as_str(), "dim12");
    /// ```
    pub fn dim(k: usize) -> DimName {
        // "dim" and at most 20 digits fit the inline buffer.
        let mut digits = [0u8; 20];
        let mut n = k;
        let mut len = 0;
        loop {
            digits[19 - len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut a = [0u8; INLINE_CAPACITY + 1];
        a[0] = (3 + len) as u8;
        a[1..4].copy_from_slice(b"dim");
        a[4..4 + len].copy_from_slice(&digits[20 - len..]);
        DimName(Repr::Inline(Inline(a)))
    }

    /// Three words that determine the name (equal names, equal words): what hashing a list
    /// of dims reads.
    pub(crate) fn words(&self) -> [u64; 3] {
        match &self.0 {
            Repr::Inline(Inline(a)) => {
                let word = |k: usize| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(&a[8 * k..8 * k + 8]);
                    u64::from_le_bytes(w)
                };
                [word(0), word(1), word(2)]
            }
            // Interned names are unique: the address decides (and no inline name has an
            // all-ones first word, its length being at most 23).
            Repr::Interned(s) => [u64::MAX, s.as_ptr() as u64, s.len() as u64],
        }
    }

    /// The name's bytes (no UTF-8 check: what comparisons use).
    fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline(Inline(a)) => &a[1..1 + a[0] as usize],
            Repr::Interned(s) => s.as_bytes(),
        }
    }
}

impl From<&str> for DimName {
    fn from(s: &str) -> Self {
        if s.len() <= INLINE_CAPACITY {
            let mut a = [0u8; INLINE_CAPACITY + 1];
            a[0] = s.len() as u8;
            a[1..1 + s.len()].copy_from_slice(s.as_bytes());
            DimName(Repr::Inline(Inline(a)))
        } else {
            DimName(Repr::Interned(intern(s)))
        }
    }
}

impl From<String> for DimName {
    fn from(s: String) -> Self {
        DimName::from(s.as_str())
    }
}

impl From<&String> for DimName {
    fn from(s: &String) -> Self {
        DimName::from(s.as_str())
    }
}

impl From<&DimName> for DimName {
    fn from(s: &DimName) -> Self {
        *s
    }
}

impl Deref for DimName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for DimName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for DimName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for DimName {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Inline(a), Repr::Inline(b)) => a == b,
            // Interned names are unique, so the pointer decides.
            (Repr::Interned(a), Repr::Interned(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for DimName {}

impl PartialEq<str> for DimName {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        match &self.0 {
            // Lengths first: most mismatches end there, without a byte comparison.
            Repr::Inline(Inline(a)) => {
                let (n, b) = (other.len(), other.as_bytes());
                n == a[0] as usize
                    && match a.get(1..1 + n) {
                        // Names of up to 8 bytes (every hardware dim's) as one word each.
                        Some(mine) if n <= 8 => short_key(mine) == short_key(b),
                        mine => mine == Some(b),
                    }
            }
            Repr::Interned(s) => *s == other,
        }
    }
}

/// A word that determines a string of at most 8 bytes among those of its length (two
/// overlapping 4-byte loads, or three bytes of a shorter one): comparing names without
/// `memcmp`.
#[inline]
fn short_key(b: &[u8]) -> u64 {
    let n = b.len();
    let word = |at: usize| {
        let mut w = [0u8; 4];
        if let Some(src) = b.get(at..at + 4) {
            w.copy_from_slice(src);
        }
        u32::from_le_bytes(w) as u64
    };
    if n >= 4 {
        return word(0) | word(n - 4) << 32;
    }
    // The first, middle and last bytes (all 0 for the empty name) decide a shorter one.
    let byte = |at: Option<usize>| at.and_then(|i| b.get(i)).map_or(0, |&c| c as u64);
    byte(Some(0)) | byte(Some(n / 2)) << 8 | byte(n.checked_sub(1)) << 16
}

/// A name as `apply` compares it on its hot path: for names of up to 8 bytes (every hardware
/// dim's) the length and [`short_key`], computed once — so a query's name costs one length,
/// one key and two comparisons. A longer name never matches its key: `apply` then looks the
/// query up by name, comparing it in full.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NameKey {
    /// `short_key` of a short name; 0 for a long one.
    key: u64,
    /// The length of a short name; `usize::MAX`, which no query has, for a longer one.
    len: usize,
}

impl NameKey {
    pub(crate) fn of(name: &DimName) -> Self {
        let b = name.as_str().as_bytes();
        if b.len() <= 8 {
            NameKey {
                key: short_key(b),
                len: b.len(),
            }
        } else {
            NameKey {
                key: 0,
                len: usize::MAX,
            }
        }
    }

    /// Whether `query` is the (short) name this key was made of; never for a long name.
    #[inline]
    pub(crate) fn matches(&self, query: &str) -> bool {
        query.len() == self.len && short_key(query.as_bytes()) == self.key
    }
}

impl PartialEq<&str> for DimName {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialOrd for DimName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DimName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for DimName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl fmt::Display for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for DimName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for DimName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: std::borrow::Cow<'de, str> = serde::Deserialize::deserialize(d)?;
        Ok(DimName::from(&*s))
    }
}

#[cfg(all(test, feature = "quickcheck"))]
mod laws {
    use super::*;
    use crate::linear::check_law;

    /// A name equals a string exactly when their bytes are equal (the word-wise comparison of
    /// short names included): against itself, and against a copy with one byte changed.
    #[test]
    fn comparing_with_a_string_is_string_equality() {
        fn law(s: String, at: u8, to: u8) -> bool {
            let name = DimName::from(s.as_str());
            let mut other = s.clone().into_bytes();
            if let Some(b) = other.get_mut(at as usize % s.len().max(1)) {
                *b = to % 128;
            }
            let other = String::from_utf8(other).unwrap_or_default();
            name == *s.as_str() && (name == *other.as_str()) == (s == other)
        }
        check_law(law as fn(String, u8, u8) -> bool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_round_trip() {
        let long = "a_dimension_name_longer_than_the_inline_buffer";
        let n = DimName::from(long);
        assert_eq!(n.as_str(), long);
        assert_eq!(n.clone(), DimName::from(long.to_string()));
        assert_ne!(n, DimName::from("a_dimension_name"));
    }

    #[test]
    fn inline_boundary() {
        let s23 = "abcdefghijklmnopqrstuvw";
        let s24 = "abcdefghijklmnopqrstuvwx";
        assert_eq!(DimName::from(s23).as_str(), s23);
        assert_eq!(DimName::from(s24).as_str(), s24);
        assert!(matches!(DimName::from(s23).0, Repr::Inline(_)));
        assert!(matches!(DimName::from(s24).0, Repr::Interned(_)));
        assert_eq!(std::mem::size_of::<DimName>(), 32);
        assert_ne!(DimName::from(s23), DimName::from(s24));
        assert_eq!(DimName::from(s24), DimName::from(s24.to_string()));
    }

    /// A short name's key matches exactly the strings equal to the name, a long name's none:
    /// names of every length class (the 1–3 byte key, the two-word key up to 8 bytes, past
    /// it), against strings that differ only in one byte or in length.
    #[test]
    fn a_name_key_matches_exactly_its_name() {
        let names = [
            "",
            "x",
            "ab",
            "abc",
            "lane",
            "warp",
            "block",
            "regist",
            "register",
            "registers",
            "dim0",
            "dim1",
            "offset",
            "a_dimension_name_longer_than_the_inline_buffer",
        ];
        let mut queries: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        for s in names {
            for i in 0..s.len() {
                let mut b = s.as_bytes().to_vec();
                b[i] ^= 1;
                queries.push(String::from_utf8(b).unwrap());
            }
            queries.push(format!("{s}_"));
        }
        for name in names {
            let key = NameKey::of(&DimName::from(name));
            for q in &queries {
                let short = name.len() <= 8;
                assert_eq!(key.matches(q), short && q == name, "{name:?} against {q:?}");
            }
        }
    }
}
