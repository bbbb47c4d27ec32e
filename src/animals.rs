//! The two sides and the eight animals, shared by both games (Jungle and the flip game); what
//! only one game does with them (Jungle's river jumps) lives in that game's module.

use std::fmt;

use crate::game::Seat;

/// A colour. Red moves first (in Jungle it starts on ranks 1–3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Side {
    Red = 0,
    Blue = 1,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Red, Side::Blue];

    #[inline(always)]
    pub const fn flip(self) -> Side {
        match self {
            Side::Red => Side::Blue,
            Side::Blue => Side::Red,
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn name(self) -> &'static str {
        match self {
            Side::Red => "Red",
            Side::Blue => "Blue",
        }
    }

    pub const fn player(self) -> Seat {
        match self {
            Side::Red => Seat::First,
            Side::Blue => Seat::Second,
        }
    }

    pub const fn from_player(p: Seat) -> Side {
        match p {
            Seat::First => Side::Red,
            Seat::Second => Side::Blue,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An animal. The discriminant is the standard rank minus one; the `dog_over_wolf` variant of
/// either game swaps the ranks of Dog and Wolf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    Rat = 0,
    Cat = 1,
    Dog = 2,
    Wolf = 3,
    Leopard = 4,
    Tiger = 5,
    Lion = 6,
    Elephant = 7,
}

impl Kind {
    pub const ALL: [Kind; 8] = [Kind::Rat, Kind::Cat, Kind::Dog, Kind::Wolf, Kind::Leopard, Kind::Tiger, Kind::Lion, Kind::Elephant];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(i: usize) -> Kind {
        Kind::ALL[i & 7]
    }

    /// Upper-case letter used in FEN and diagrams.
    pub const fn letter(self) -> char {
        match self {
            Kind::Rat => 'R',
            Kind::Cat => 'C',
            Kind::Dog => 'D',
            Kind::Wolf => 'W',
            Kind::Leopard => 'P',
            Kind::Tiger => 'T',
            Kind::Lion => 'L',
            Kind::Elephant => 'E',
        }
    }

    pub fn from_letter(c: char) -> Option<Kind> {
        let up = c.to_ascii_uppercase();
        Kind::ALL.into_iter().find(|k| k.letter() == up)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Kind::Rat => "Rat",
            Kind::Cat => "Cat",
            Kind::Dog => "Dog",
            Kind::Wolf => "Wolf",
            Kind::Leopard => "Leopard",
            Kind::Tiger => "Tiger",
            Kind::Lion => "Lion",
            Kind::Elephant => "Elephant",
        }
    }

    /// The rank (1 = Rat … 8 = Elephant); `dog_over_wolf` swaps Dog (3) and Wolf (4).
    #[inline(always)]
    pub const fn rank(self, dog_over_wolf: bool) -> u8 {
        match self {
            Kind::Dog if dog_over_wolf => 4,
            Kind::Wolf if dog_over_wolf => 3,
            k => k as u8 + 1,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
