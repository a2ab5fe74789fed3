//! A set of names: what every analysis computes and combines.
//!
//! A sorted, deduplicated vector. The sets of one function are small (tens
//! of names) and are built, merged and dropped by the thousand per
//! conversion; a vector does each in one allocation and a linear merge,
//! where a `BTreeSet` allocated nodes and compared through them (it was a
//! third of conversion time). Iteration is in sorted order, as before:
//! generated state lists (`get_state`, `nonlocal`) come out alphabetical.

use ruff_python_ast::name::Name;
use std::borrow::Borrow;
use std::cmp::Ordering;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names(Vec<Name>);

impl Names {
    pub fn new() -> Names {
        Names(Vec::new())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Name> {
        self.0.iter()
    }

    pub fn contains<Q>(&self, name: &Q) -> bool
    where
        Name: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.0.binary_search_by(|n| n.borrow().cmp(name)).is_ok()
    }

    /// Adds `name`; whether it was new.
    pub fn insert(&mut self, name: Name) -> bool {
        match self.0.binary_search(&name) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, name);
                true
            }
        }
    }

    pub fn remove<Q>(&mut self, name: &Q) -> bool
    where
        Name: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        match self.0.binary_search_by(|n| n.borrow().cmp(name)) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    pub fn retain(&mut self, keep: impl FnMut(&Name) -> bool) {
        self.0.retain(keep);
    }

    /// Adds every name of `other`, cloning only those it adds.
    pub fn extend_from(&mut self, other: &Names) {
        if self.0.is_empty() {
            self.0.clone_from(&other.0);
            return;
        }
        let before = self.0.len();
        let mut i = 0;
        for n in &other.0 {
            while i < before && self.0[i] < *n {
                i += 1;
            }
            if i == before || self.0[i] != *n {
                self.0.push(n.clone());
            }
        }
        if self.0.len() > before {
            // Two sorted runs: the sort merges them.
            self.0.sort();
        }
    }

    pub fn union<'a>(&'a self, other: &'a Names) -> impl Iterator<Item = &'a Name> + 'a {
        merge(&self.0, &other.0, Keep::Either)
    }

    pub fn intersection<'a>(&'a self, other: &'a Names) -> impl Iterator<Item = &'a Name> + 'a {
        merge(&self.0, &other.0, Keep::Both)
    }

    pub fn difference<'a>(&'a self, other: &'a Names) -> impl Iterator<Item = &'a Name> + 'a {
        merge(&self.0, &other.0, Keep::LeftOnly)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Either,
    Both,
    LeftOnly,
}

/// The names of two sorted slices that `keep` selects, in order, once each.
fn merge<'a>(a: &'a [Name], b: &'a [Name], keep: Keep) -> impl Iterator<Item = &'a Name> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || loop {
        let next = match (a.get(i), b.get(j)) {
            (None, None) => return None,
            (Some(x), None) => {
                i += 1;
                (x, keep != Keep::Both)
            }
            // Only `b` is left: kept only by a union.
            (None, Some(_)) if keep != Keep::Either => return None,
            (None, Some(y)) => {
                j += 1;
                (y, true)
            }
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Less => {
                    i += 1;
                    (x, keep != Keep::Both)
                }
                Ordering::Greater => {
                    j += 1;
                    (y, keep == Keep::Either)
                }
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (x, keep != Keep::LeftOnly)
                }
            },
        };
        if next.1 {
            return Some(next.0);
        }
    })
}

impl FromIterator<Name> for Names {
    fn from_iter<I: IntoIterator<Item = Name>>(iter: I) -> Names {
        let mut v: Vec<Name> = iter.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        Names(v)
    }
}

impl Extend<Name> for Names {
    fn extend<I: IntoIterator<Item = Name>>(&mut self, iter: I) {
        let before = self.0.len();
        self.0.extend(iter);
        if self.0.len() > before {
            self.0.sort_unstable();
            self.0.dedup();
        }
    }
}

impl IntoIterator for Names {
    type Item = Name;
    type IntoIter = std::vec::IntoIter<Name>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Names {
    type Item = &'a Name;
    type IntoIter = std::slice::Iter<'a, Name>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn names(s: &str) -> Names {
        s.split_whitespace().map(Name::from).collect()
    }

    fn btree(n: &Names) -> BTreeSet<Name> {
        n.iter().cloned().collect()
    }

    /// Every operation against BTreeSet's, on all pairs of a few sets.
    #[test]
    fn operations_match_btreeset() {
        let sets = ["", "a", "b", "a b", "a c", "b c d", "a b c d e", "x", "c"];
        for a in sets {
            for b in sets {
                let (na, nb) = (names(a), names(b));
                let (ba, bb) = (btree(&na), btree(&nb));
                let got = |it: Vec<&Name>| it.into_iter().cloned().collect::<Vec<_>>();
                assert_eq!(got(na.union(&nb).collect()), got(ba.union(&bb).collect()), "{a:?} | {b:?}");
                assert_eq!(got(na.intersection(&nb).collect()), got(ba.intersection(&bb).collect()), "{a:?} & {b:?}");
                assert_eq!(got(na.difference(&nb).collect()), got(ba.difference(&bb).collect()), "{a:?} - {b:?}");
                let mut e = na.clone();
                e.extend_from(&nb);
                assert_eq!(btree(&e), ba.union(&bb).cloned().collect::<BTreeSet<_>>());
                let mut e = na.clone();
                e.extend(nb.iter().cloned());
                assert_eq!(e.iter().cloned().collect::<Vec<_>>(), ba.union(&bb).cloned().collect::<Vec<_>>());
                for n in b.split_whitespace() {
                    assert_eq!(na.contains(n), ba.contains(n));
                }
            }
        }
        let mut n = names("b a");
        assert!(n.insert(Name::from("c")) && !n.insert(Name::from("a")));
        assert!(n.remove("b") && !n.remove("b"));
        assert_eq!(n, names("a c"));
    }
}
