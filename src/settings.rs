//! Each setting declared once. A config section is written with [`settings!`](crate::settings):
//! every field with its type, default, range (where it has one), the protocol option that sets
//! it (where one does) and one line of help. From that one declaration come the section's
//! struct and `Default`, its range checks, the [`Setting`] table that the command line's flags,
//! the protocol's `option` lines and the documented default config
//! ([`crate::config::Config::documented_defaults`], configs/default.toml) read.

/// One setting as declared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// The config section (`mcts`).
    pub section: &'static str,
    /// The key within it (`playouts`).
    pub name: &'static str,
    /// The Rust type it is held in (`u32`, `f32`, `bool`, `String`, an enum's name).
    pub ty: &'static str,
    /// The values it may take, inclusive, for a number (for each element of a list).
    pub range: Option<(f64, f64)>,
    /// Whether the range is each element's (a list of numbers).
    pub each: bool,
    /// The protocol option that sets it (`Playouts`), if one does.
    pub option: Option<&'static str>,
    /// One line of help.
    pub help: &'static str,
}

impl Setting {
    /// `section.name` (`name` for a key outside any section).
    pub fn key(&self) -> String {
        if self.section.is_empty() { self.name.to_string() } else { format!("{}.{}", self.section, self.name) }
    }

    /// The setting's value in a config's TOML table (sections as tables).
    pub fn value_in<'a>(&self, table: &'a toml::Table) -> Option<&'a toml::Value> {
        lookup(table, self.section, self.name)
    }

    /// The range's ends as the setting's type writes them (`0.05`, not the single-precision
    /// number's double `0.05000000074505806`).
    pub fn range_text(&self) -> Option<(String, String)> {
        let text = |x: f64| if self.ty == "f32" { format!("{}", x as f32) } else { format!("{x}") };
        self.range.map(|(lo, hi)| (text(lo), text(hi)))
    }

    /// The range as whole numbers (for the protocol's `spin` options).
    pub fn int_range(&self) -> Option<(i64, i64)> {
        self.range.map(|(lo, hi)| (lo as i64, hi as i64))
    }

    /// Whether `value` lies in the declared range (true for a setting without one).
    pub fn admits(&self, value: f64) -> bool {
        self.range.is_none_or(|(lo, hi)| lo <= value && value <= hi)
    }
}

/// A config section declared with [`settings!`](crate::settings).
pub trait Section {
    /// Its name in configs (`mcts`; `rules` for Jungle's rules).
    const SECTION: &'static str;
    /// What it configures, in a sentence or two (the documented defaults print it above it).
    const ABOUT: &'static str;
    /// Its settings, in the order they are declared.
    const SETTINGS: &'static [Setting];

    /// Every declared range, checked.
    fn check_ranges(&self) -> Result<(), crate::check::ConfigError>;
}

/// The value at `section.name` of a config's TOML table (`name` alone for an empty section).
pub fn lookup<'a>(table: &'a toml::Table, section: &str, name: &str) -> Option<&'a toml::Value> {
    if section.is_empty() { table.get(name) } else { table.get(section).and_then(|s| s.get(name)) }
}

/// The setting at `key` (`section.name`, or a top-level `name`) among `all`.
pub fn find<'a>(all: &'a [Setting], key: &str) -> Option<&'a Setting> {
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    all.iter().find(|s| s.section == section && s.name == name)
}

/// Whether two names are the same, at compile time (the registry checks each game's rules
/// section against the name its rules declare).
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a config section: the struct, its `Default`, its range checks and its
/// [`Setting`] table, each field once:
///
/// ```ignore
/// settings! {
///     /// `[mcts]`: Monte-Carlo tree search.
///     #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
///     #[serde(deny_unknown_fields, default)]
///     pub struct MctsConfig in "mcts", about "Monte-Carlo tree search." {
///         /// Simulations per move when playing without a node or time limit.
///         pub playouts: u32 = 400 => "simulations a move without a node or time limit", range(1, 10_000_000), option("Playouts");
///     }
/// }
/// ```
///
/// Field attributes other than doc comments are `#[serde(...)]` ones, after the docs.
#[macro_export]
macro_rules! settings {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $section:literal, about $about:literal {
            $(
                $(#[doc = $doc:literal])*
                $(#[serde($($serde:tt)*)])*
                pub $field:ident: $ty:ty = $default:expr => $help:literal $(, range($lo:expr, $hi:expr))? $(, each($elo:expr, $ehi:expr))? $(, option($opt:literal))?;
            )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::settings::Section for $name {
            const SECTION: &'static str = $section;
            const ABOUT: &'static str = $about;
            const SETTINGS: &'static [$crate::settings::Setting] = &[
                $($crate::settings::Setting {
                    section: $section,
                    name: stringify!($field),
                    ty: stringify!($ty),
                    range: $crate::settings!(@range $ty $(, $lo, $hi)? $(; $elo, $ehi)?),
                    each: $crate::settings!(@each $($elo)?),
                    option: $crate::settings!(@option $($opt)?),
                    help: $help,
                },)*
            ];

            fn check_ranges(&self) -> Result<(), $crate::check::ConfigError> {
                $($crate::settings!(@check self, $section, $field, $ty $(, $lo, $hi)? $(; $elo, $ehi)?);)*
                Ok(())
            }
        }
    };
    (@range $ty:ty) => {
        None
    };
    (@range $ty:ty, $lo:expr, $hi:expr) => {
        Some((
            {
                let lo: $ty = $lo;
                lo as f64
            },
            {
                let hi: $ty = $hi;
                hi as f64
            },
        ))
    };
    (@range $ty:ty; $lo:expr, $hi:expr) => {
        Some(($lo as f64, $hi as f64))
    };
    (@each) => {
        false
    };
    (@each $lo:expr) => {
        true
    };
    (@option) => {
        None
    };
    (@option $opt:literal) => {
        Some($opt)
    };
    (@check $s:ident, $section:literal, $field:ident, $ty:ty) => {};
    (@check $s:ident, $section:literal, $field:ident, $ty:ty, $lo:expr, $hi:expr) => {
        $crate::check::check_range::<$ty>(concat!($section, ".", stringify!($field)), $s.$field, $lo, $hi)?
    };
    (@check $s:ident, $section:literal, $field:ident, $ty:ty; $lo:expr, $hi:expr) => {
        for (i, v) in $s.$field.iter().enumerate() {
            $crate::check::check_range(&format!(concat!($section, ".", stringify!($field), "[{}]"), i), *v, $lo, $hi)?;
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::settings! {
        /// A section for the tests.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct Sample in "sample", about "A section for the tests." {
            /// A count.
            pub count: u32 = 4 => "how many", range(1, 10), option("Count");
            /// A weight.
            pub weight: f32 = 0.25 => "how much", range(-2.0, 0.5);
            /// Big numbers.
            pub big: u64 = 1 << 30 => "a lot", range(0, 1_000_000_000_000);
            /// A switch.
            #[serde(alias = "flag")]
            pub switch: bool = true => "whether";
            /// A list.
            pub list: Vec<i32> = vec![1, 2] => "some numbers", each(-5, 5);
        }
    }

    #[test]
    fn a_declaration_gives_the_struct_its_defaults_checks_and_table() {
        let d = Sample::default();
        assert_eq!((d.count, d.weight, d.big, d.switch, d.list.clone()), (4, 0.25, 1 << 30, true, vec![1, 2]));
        assert!(d.check_ranges().is_ok());
        let e = Sample { count: 11, ..d.clone() }.check_ranges().unwrap_err().to_string();
        assert!(e.contains("sample.count") && e.contains("1 to 10"), "{e}");
        assert!(Sample { weight: 0.75, ..d.clone() }.check_ranges().is_err());
        assert_eq!(<Sample as Section>::SETTINGS.len(), 5);
        assert_eq!((<Sample as Section>::SECTION, <Sample as Section>::ABOUT), ("sample", "A section for the tests."));
        let e = Sample { list: vec![1, 6], ..d.clone() }.check_ranges().unwrap_err().to_string();
        assert!(e.contains("sample.list[1]"), "{e}");
        let list = find(<Sample as Section>::SETTINGS, "sample.list").unwrap();
        assert_eq!((list.range, list.each), (Some((-5.0, 5.0)), true));
        let count = find(<Sample as Section>::SETTINGS, "sample.count").unwrap();
        assert_eq!((count.ty, count.range, count.option, count.help), ("u32", Some((1.0, 10.0)), Some("Count"), "how many"));
        assert_eq!(find(<Sample as Section>::SETTINGS, "sample.weight").unwrap().range_text(), Some(("-2".to_string(), "0.5".to_string())));
        assert_eq!(find(<Sample as Section>::SETTINGS, "sample.big").unwrap().int_range(), Some((0, 1_000_000_000_000)));
        assert_eq!(find(<Sample as Section>::SETTINGS, "sample.switch").unwrap().range, None);
        assert!(find(<Sample as Section>::SETTINGS, "sample.nothing").is_none());
        // The serde attributes pass through.
        let read: Sample = toml::from_str("flag = false").unwrap();
        assert!(!read.switch);
    }
}
