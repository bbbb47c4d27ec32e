//! A material signature: which animals each side has (each side has at most one of each).
//! Written as the Red animals in upper case, a dash, the Blue ones in lower case, strongest
//! first: `ER-l` is Red Elephant and Rat against the Blue Lion.

use std::fmt;

use crate::jungle::{Kind, Piece, Side};

/// Each side's animals as a bit set over [`Kind::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    pub red: u8,
    pub blue: u8,
}

/// Why a material text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("'{0}' is not a material signature: Red's animals, a dash, Blue's, e.g. ER-l (letters R C D W P T L E)")]
    Form(String),
    #[error("'{text}': each side has one {kind} at most")]
    Twice { text: String, kind: &'static str },
    #[error("'{0}': each side needs at least one animal (with none the game is over)")]
    Empty(String),
}

impl Material {
    /// Pieces in all.
    pub fn count(self) -> usize {
        (self.red.count_ones() + self.blue.count_ones()) as usize
    }

    /// The pieces in table order: Red's animals from the Rat up, then Blue's.
    pub fn pieces(self) -> Vec<Piece> {
        self.each_piece().collect()
    }

    /// The same without allocating (probing runs it at every node it probes).
    pub fn each_piece(self) -> impl Iterator<Item = Piece> {
        let side = |mask: u8, s: Side| Kind::ALL.into_iter().filter(move |k| mask & (1 << k.index()) != 0).map(move |k| Piece::new(s, k));
        side(self.red, Side::Red).chain(side(self.blue, Side::Blue))
    }

    /// The same material with the colours swapped.
    pub fn flipped(self) -> Material {
        Material { red: self.blue, blue: self.red }
    }

    /// Whether tables store this material as it is (otherwise as [`Self::flipped`], probed
    /// through the colour flip): the side with more animals, or the larger set, is Red.
    pub fn is_canonical(self) -> bool {
        (self.red.count_ones(), self.red) >= (self.blue.count_ones(), self.blue)
    }

    pub fn canonical(self) -> Material {
        if self.is_canonical() { self } else { self.flipped() }
    }

    /// Every canonical material of `2..=max` pieces with at least one on each side, fewest
    /// pieces first.
    pub fn all_up_to(max: usize) -> Vec<Material> {
        let mut out: Vec<Material> = (1u16..256)
            .flat_map(|r| (1u16..256).map(move |b| Material { red: r as u8, blue: b as u8 }))
            .filter(|m| m.count() <= max && m.is_canonical())
            .collect();
        out.sort_by_key(|m| (m.count(), *m));
        out
    }

    /// The canonical materials one capture away (a piece of either side removed, each side
    /// keeping one).
    pub fn after_captures(self) -> Vec<Material> {
        let mut out = Vec::new();
        for k in 0..8 {
            let bit = 1u8 << k;
            if self.red & bit != 0 && self.red.count_ones() > 1 {
                out.push(Material { red: self.red & !bit, blue: self.blue }.canonical());
            }
            if self.blue & bit != 0 && self.blue.count_ones() > 1 {
                out.push(Material { red: self.red, blue: self.blue & !bit }.canonical());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    pub fn parse(text: &str) -> Result<Material, MaterialError> {
        let t = text.trim();
        let (r, b) = t.split_once('-').ok_or_else(|| MaterialError::Form(crate::check::clip(t)))?;
        let set = |s: &str| -> Result<u8, MaterialError> {
            let mut mask = 0u8;
            for c in s.chars() {
                let k = Kind::from_letter(c).ok_or_else(|| MaterialError::Form(crate::check::clip(t)))?;
                if mask & (1 << k.index()) != 0 {
                    return Err(MaterialError::Twice { text: crate::check::clip(t), kind: k.name() });
                }
                mask |= 1 << k.index();
            }
            Ok(mask)
        };
        let m = Material { red: set(r)?, blue: set(b)? };
        if m.red == 0 || m.blue == 0 {
            return Err(MaterialError::Empty(crate::check::clip(t)));
        }
        Ok(m)
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letters = |mask: u8, upper: bool| -> String {
            Kind::ALL.iter().rev().filter(|k| mask & (1 << k.index()) != 0).map(|k| if upper { k.letter() } else { k.letter().to_ascii_lowercase() }).collect()
        };
        write!(f, "{}-{}", letters(self.red, true), letters(self.blue, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn materials_read_write_and_count() {
        let m = Material::parse("RE-l").unwrap();
        assert_eq!(m.to_string(), "ER-l");
        assert_eq!(m.count(), 3);
        assert_eq!(m.pieces().iter().map(|p| p.letter()).collect::<String>(), "REl");
        assert!(m.is_canonical() && !m.flipped().is_canonical());
        assert_eq!(
            m.after_captures(),
            vec![Material::parse("E-l").unwrap(), Material::parse("R-l").unwrap()]
                .into_iter()
                .map(Material::canonical)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
        );
        assert!(Material::parse("EE-l").unwrap_err().to_string().contains("one Elephant"));
        assert!(Material::parse("E-").is_err() && Material::parse("El").is_err() && Material::parse("X-l").is_err());
        // 2 pieces: 8 x 8 pairs, 36 up to the colour flip; 3 pieces: 28 x 8 more.
        assert_eq!(Material::all_up_to(2).len(), 36);
        assert_eq!(Material::all_up_to(3).len(), 36 + 224);
    }
}
