//! CSV as spreadsheets read it (RFC 4180): fields separated by commas, lines by CRLF, a
//! field quoted when it holds a comma, a quote, a line break or edge spaces, with its
//! quotes doubled. The page builds every table's CSV from the report it shows, so a
//! download works offline and always matches the screen.

use std::borrow::Cow;

/// One field, quoted when it must be.
pub fn escape(field: &str) -> Cow<'_, str> {
    let must = field.contains([',', '"', '\n', '\r']) || field.starts_with(' ') || field.ends_with(' ');
    if must { Cow::Owned(format!("\"{}\"", field.replace('"', "\"\""))) } else { Cow::Borrowed(field) }
}

/// A header line and the rows, each line ended by CRLF.
pub fn write<H: AsRef<str>, F: AsRef<str>>(header: &[H], rows: &[Vec<F>]) -> String {
    let mut out = String::new();
    line(&mut out, header);
    for row in rows {
        line(&mut out, row);
    }
    out
}

fn line<F: AsRef<str>>(out: &mut String, fields: &[F]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&escape(f.as_ref()));
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fields_stay_as_they_are() {
        assert_eq!(escape("A100-80G"), "A100-80G");
        assert_eq!(escape("12.5"), "12.5");
        assert_eq!(escape(""), "");
    }

    #[test]
    fn fields_that_would_break_a_line_are_quoted() {
        assert_eq!(escape("vision, speech"), "\"vision, speech\"");
        assert_eq!(escape("the \"big\" one"), "\"the \"\"big\"\" one\"");
        assert_eq!(escape("two\nlines"), "\"two\nlines\"");
        assert_eq!(escape("cr\r"), "\"cr\r\"");
        assert_eq!(escape(" padded"), "\" padded\"");
    }

    #[test]
    fn a_table_is_a_header_and_crlf_lines() {
        let rows = vec![vec!["A100", "training", "1.5"], vec!["H100", "a,b", "0"]];
        assert_eq!(
            write(&["model", "category", "GPU-hours"], &rows),
            "model,category,GPU-hours\r\nA100,training,1.5\r\nH100,\"a,b\",0\r\n"
        );
        assert_eq!(write::<&str, &str>(&["only"], &[]), "only\r\n");
    }
}
