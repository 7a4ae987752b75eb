//! The Prometheus text exposition format, version 0.0.4: one `# HELP` and `# TYPE` per
//! family, then its samples, label values escaped. Written by hand: the format is a few
//! lines of rules, and the gauges come from queries rather than from a client library's
//! registry.

use std::fmt::Write;

/// The content type of a scrape's answer.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A scrape's text, family by family.
#[derive(Default)]
pub struct Exposition {
    out: String,
}

/// What a family is, as its `# TYPE` line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Gauge,
    Counter,
    Histogram,
}

impl Type {
    fn word(self) -> &'static str {
        match self {
            Type::Gauge => "gauge",
            Type::Counter => "counter",
            Type::Histogram => "histogram",
        }
    }
}

impl Exposition {
    /// Starts a family; its samples must follow before the next family starts.
    pub fn family(&mut self, name: &str, help: &str, ty: Type) {
        let help = help.replace('\\', "\\\\").replace('\n', "\\n");
        let _ = writeln!(self.out, "# HELP {name} {help}\n# TYPE {name} {}", ty.word());
    }

    /// One sample: `name{label="value",…} value`.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (label, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let v = v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
                let _ = write!(self.out, "{label}=\"{v}\"");
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {}", number(value));
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// A value as the format writes it (`+Inf`, `NaN`; integers without a fraction).
pub fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf".into() } else { "-Inf".into() }
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_and_help_are_escaped() {
        let mut e = Exposition::default();
        e.family("x_seconds", "a \\ b\nc", Type::Gauge);
        e.sample("x_seconds", &[("route", "a\"b\\c\nd"), ("pool", "east")], 1.5);
        e.sample("x_seconds", &[], f64::INFINITY);
        assert_eq!(
            e.finish(),
            "# HELP x_seconds a \\\\ b\\nc\n# TYPE x_seconds gauge\n\
             x_seconds{route=\"a\\\"b\\\\c\\nd\",pool=\"east\"} 1.5\nx_seconds +Inf\n"
        );
    }

    #[test]
    fn numbers_are_plain() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.005), "0.005");
        assert_eq!(number(f64::NAN), "NaN");
    }
}
