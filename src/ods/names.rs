//! The qualified names an OpenDocument reader matches, spelled with the
//! prefixes the document itself binds.
//!
//! ODF documents bind their namespaces on the root element
//! (`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`), and
//! nearly every writer uses the conventional prefixes. Readers that match
//! `table:table-row` literally read a file with other prefixes as empty;
//! this one reads the root's declarations once and spells every name it
//! looks for with the prefixes bound there ([`Names::from_root`]), so that
//! the hot loops still compare plain bytes. A namespace may be bound to
//! two prefixes at once (the default namespace and `office:`, in one
//! corpus file): a name then has two spellings, both matched; a third
//! binding is not followed. A namespace the root does not bind keeps its
//! conventional prefix (files written without declarations mean those).
//! Declarations on inner elements are not followed: no writer puts them
//! there, and a name spelled otherwise is a foreign element, skipped with
//! its content.

use crate::xml::{self, Attributes, Span, XmlError};

pub(crate) const OFFICE: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:office:1.0";
pub(crate) const TABLE: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:table:1.0";
pub(crate) const TEXT: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:text:1.0";
pub(crate) const STYLE: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:style:1.0";
pub(crate) const NUMBER: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0";
pub(crate) const CALCEXT: &[u8] =
    b"urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0";
pub(crate) const DRAW: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0";
pub(crate) const XLINK: &[u8] = b"http://www.w3.org/1999/xlink";
pub(crate) const DC: &[u8] = b"http://purl.org/dc/elements/1.1/";
pub(crate) const FO: &[u8] = b"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0";

/// The namespaces read, with their conventional prefixes.
const KNOWN: [(&[u8], &[u8]); 10] = [
    (OFFICE, b"office"),
    (TABLE, b"table"),
    (TEXT, b"text"),
    (STYLE, b"style"),
    (NUMBER, b"number"),
    (CALCEXT, b"calcext"),
    (DRAW, b"draw"),
    (XLINK, b"xlink"),
    (DC, b"dc"),
    (FO, b"fo"),
];

/// Which namespace a name is looked for in (indexes into [`KNOWN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    Office = 0,
    Table = 1,
    Text = 2,
    Style = 3,
    Number = 4,
    Calcext = 5,
    Draw = 6,
    Xlink = 7,
    Dc = 8,
    Fo = 9,
}

/// A qualified name as the document spells it (two spellings when its
/// namespace is bound to two prefixes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct QName {
    spelled: Vec<u8>,
    also: Option<Vec<u8>>,
}

/// Whether two names (or other short byte strings) are equal: lengths
/// first, then eight bytes at a time, the last word overlapping the one
/// before (no `memcmp` call for a dozen or two bytes).
#[inline(always)]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let length = a.len();
    if length != b.len() {
        return false;
    }
    if length < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |bytes: &[u8], at: usize| {
        bytes
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
            .map_or(0, |word| u64::from_le_bytes(*word))
    };
    let mut at = 0;
    while at + 8 < length {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, length - 8) == word(b, length - 8)
}

impl QName {
    /// Whether `name` is this name.
    #[inline(always)]
    pub(crate) fn is(&self, name: &[u8]) -> bool {
        same(&self.spelled, name) || self.also.as_deref().is_some_and(|also| same(also, name))
    }

    /// The name's spellings (one or two).
    pub(crate) fn spellings(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(self.spelled.as_slice()).chain(self.also.as_deref())
    }

    /// Whether the name has a second spelling.
    #[inline(always)]
    pub(crate) fn has_second_spelling(&self) -> bool {
        self.also.is_some()
    }

    /// The first spelling.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.spelled
    }
}

/// The prefixes a document binds, and the names the readers look for,
/// spelled with them.
#[derive(Debug, Clone)]
pub(crate) struct Names {
    /// Each namespace's prefix, and a second one where it has two.
    prefixes: [(Vec<u8>, Option<Vec<u8>>); KNOWN.len()],
    // Elements.
    pub document_content: QName,
    pub document: QName,
    pub document_styles: QName,
    pub body: QName,
    pub spreadsheet: QName,
    pub automatic_styles: QName,
    pub styles: QName,
    pub table: QName,
    pub table_row: QName,
    pub table_cell: QName,
    pub covered_cell: QName,
    pub table_column: QName,
    pub table_columns: QName,
    pub table_column_group: QName,
    pub table_header_columns: QName,
    pub table_rows: QName,
    pub table_row_group: QName,
    pub table_header_rows: QName,
    pub named_expressions: QName,
    pub named_range: QName,
    pub named_expression: QName,
    pub calculation_settings: QName,
    pub null_date: QName,
    pub text_p: QName,
    /// `<text:p>` and `</text:p>`, the first spelling: the fast path's
    /// shape of a cell's content.
    pub paragraph_open: Vec<u8>,
    pub paragraph_close: Vec<u8>,
    pub text_h: QName,
    pub text_s: QName,
    pub text_tab: QName,
    pub text_line_break: QName,
    pub text_a: QName,
    pub text_note_body: QName,
    pub text_ruby_text: QName,
    pub annotation: QName,
    pub style: QName,
    pub table_properties: QName,
    pub map: QName,
    pub text_properties: QName,
    pub dc_creator: QName,
    // Attributes.
    pub a_name: QName,
    pub a_style_name: QName,
    pub a_rows_repeated: QName,
    pub a_columns_repeated: QName,
    pub a_rows_spanned: QName,
    pub a_columns_spanned: QName,
    pub a_visibility: QName,
    pub a_default_cell_style: QName,
    pub a_value_type: QName,
    pub a_calc_value_type: QName,
    pub a_value: QName,
    pub a_date_value: QName,
    pub a_time_value: QName,
    pub a_boolean_value: QName,
    pub a_string_value: QName,
    pub a_formula: QName,
    pub a_text_c: QName,
    pub a_display: QName,
    pub a_family: QName,
    pub a_style_name_style: QName,
    pub a_data_style_name: QName,
    pub a_parent_style_name: QName,
    pub a_cell_range_address: QName,
    pub a_expression: QName,
    pub a_date_value_table: QName,
    pub a_href: QName,
    pub a_office_mimetype: QName,
}

impl Default for Names {
    fn default() -> Self {
        Names::with_prefixes(KNOWN.map(|(_, prefix)| (prefix.to_vec(), None)))
    }
}

impl Names {
    /// The names spelled with the prefixes `attributes` (the root
    /// element's) bind; the conventional prefix for a namespace it leaves
    /// unbound. A namespace bound to several prefixes is matched under
    /// two of them (the prefixed one first).
    pub(crate) fn from_root(input: &[u8], attributes: Span) -> Result<Names, XmlError> {
        let mut bound: [Vec<Vec<u8>>; KNOWN.len()] = Default::default();
        for attribute in Attributes::new(input, attributes) {
            let (name, value) = attribute?;
            let prefix = match name.strip_prefix(b"xmlns") {
                Some([]) => &[][..],
                Some([b':', prefix @ ..]) if !prefix.is_empty() => prefix,
                _ => continue,
            };
            let raw = value.of(input);
            let decoded;
            let uri = if raw.contains(&b'&') {
                decoded = xml::decode_owned(raw, false)?;
                decoded.as_bytes()
            } else {
                raw
            };
            if let Some(index) = KNOWN.iter().position(|(known, _)| *known == uri) {
                bound[index].retain(|earlier| earlier != prefix);
                bound[index].push(prefix.to_vec());
            }
        }
        let mut prefixes = KNOWN.map(|(_, prefix)| (prefix.to_vec(), None));
        for (slot, mut bound) in prefixes.iter_mut().zip(bound) {
            // Two bindings at most, the prefixed one first.
            bound.sort_by_key(|prefix| prefix.is_empty());
            let mut bound = bound.into_iter();
            if let Some(first) = bound.next() {
                *slot = (first, bound.next());
            }
        }
        Ok(Names::with_prefixes(prefixes))
    }

    /// Whether the qualified `name` is in `ns` (any local name).
    pub(crate) fn in_namespace(&self, name: &[u8], ns: Ns) -> bool {
        let (prefix, also) = &self.prefixes[ns as usize];
        let has_prefix = |prefix: &[u8]| {
            if prefix.is_empty() {
                !name.contains(&b':')
            } else {
                name.len() > prefix.len() + 1
                    && name.starts_with(prefix)
                    && name[prefix.len()] == b':'
            }
        };
        has_prefix(prefix) || also.as_deref().is_some_and(has_prefix)
    }

    fn with_prefixes(prefixes: [(Vec<u8>, Option<Vec<u8>>); KNOWN.len()]) -> Names {
        let q = |ns: Ns, local: &str| {
            let (prefix, also) = &prefixes[ns as usize];
            QName {
                spelled: qualify(prefix, local),
                also: also.as_deref().map(|also| qualify(also, local)),
            }
        };
        use Ns::*;
        Names {
            document_content: q(Office, "document-content"),
            document: q(Office, "document"),
            document_styles: q(Office, "document-styles"),
            body: q(Office, "body"),
            spreadsheet: q(Office, "spreadsheet"),
            automatic_styles: q(Office, "automatic-styles"),
            styles: q(Office, "styles"),
            table: q(Table, "table"),
            table_row: q(Table, "table-row"),
            table_cell: q(Table, "table-cell"),
            covered_cell: q(Table, "covered-table-cell"),
            table_column: q(Table, "table-column"),
            table_columns: q(Table, "table-columns"),
            table_column_group: q(Table, "table-column-group"),
            table_header_columns: q(Table, "table-header-columns"),
            table_rows: q(Table, "table-rows"),
            table_row_group: q(Table, "table-row-group"),
            table_header_rows: q(Table, "table-header-rows"),
            named_expressions: q(Table, "named-expressions"),
            named_range: q(Table, "named-range"),
            named_expression: q(Table, "named-expression"),
            calculation_settings: q(Table, "calculation-settings"),
            null_date: q(Table, "null-date"),
            text_p: q(Text, "p"),
            paragraph_open: [&b"<"[..], &qualify(&prefixes[Text as usize].0, "p"), b">"].concat(),
            paragraph_close: [&b"</"[..], &qualify(&prefixes[Text as usize].0, "p"), b">"].concat(),
            text_h: q(Text, "h"),
            text_s: q(Text, "s"),
            text_tab: q(Text, "tab"),
            text_line_break: q(Text, "line-break"),
            text_a: q(Text, "a"),
            text_note_body: q(Text, "note-body"),
            text_ruby_text: q(Text, "ruby-text"),
            annotation: q(Office, "annotation"),
            style: q(Style, "style"),
            table_properties: q(Style, "table-properties"),
            map: q(Style, "map"),
            text_properties: q(Style, "text-properties"),
            dc_creator: q(Dc, "creator"),
            a_name: q(Table, "name"),
            a_style_name: q(Table, "style-name"),
            a_rows_repeated: q(Table, "number-rows-repeated"),
            a_columns_repeated: q(Table, "number-columns-repeated"),
            a_rows_spanned: q(Table, "number-rows-spanned"),
            a_columns_spanned: q(Table, "number-columns-spanned"),
            a_visibility: q(Table, "visibility"),
            a_default_cell_style: q(Table, "default-cell-style-name"),
            a_value_type: q(Office, "value-type"),
            a_calc_value_type: q(Calcext, "value-type"),
            a_value: q(Office, "value"),
            a_date_value: q(Office, "date-value"),
            a_time_value: q(Office, "time-value"),
            a_boolean_value: q(Office, "boolean-value"),
            a_string_value: q(Office, "string-value"),
            a_formula: q(Table, "formula"),
            a_text_c: q(Text, "c"),
            a_display: q(Table, "display"),
            a_family: q(Style, "family"),
            a_style_name_style: q(Style, "name"),
            a_data_style_name: q(Style, "data-style-name"),
            a_parent_style_name: q(Style, "parent-style-name"),
            a_cell_range_address: q(Table, "cell-range-address"),
            a_expression: q(Table, "expression"),
            a_date_value_table: q(Table, "date-value"),
            a_href: q(Xlink, "href"),
            a_office_mimetype: q(Office, "mimetype"),
            prefixes,
        }
    }
}

fn qualify(prefix: &[u8], local: &str) -> Vec<u8> {
    let mut name = Vec::with_capacity(prefix.len() + 1 + local.len());
    if !prefix.is_empty() {
        name.extend_from_slice(prefix);
        name.push(b':');
    }
    name.extend_from_slice(local.as_bytes());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(xml: &str) -> Names {
        let bytes = xml.as_bytes();
        let end = bytes.iter().position(|&b| b == b'>').unwrap();
        let name_end = bytes.iter().position(|&b| b == b' ').unwrap();
        Names::from_root(bytes, Span::new(name_end, end)).unwrap()
    }

    #[test]
    fn names_compare_a_word_at_a_time() {
        let names = [
            &b""[..],
            b"a",
            b"text:p",
            b"table:ta",
            b"table:tab",
            b"table:table-cell",
            b"table:covered-table-cell",
            b"office:value-type",
        ];
        for a in names {
            for b in names {
                assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
            }
            for at in 0..a.len() {
                let mut other = a.to_vec();
                other[at] ^= 1;
                assert!(!same(a, &other), "{a:?} at {at}");
            }
        }
    }

    #[test]
    fn names_take_the_prefixes_the_root_binds() {
        let names = root(
            r#"<o:document-content xmlns:o="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:t="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:table="urn:example:other">"#,
        );
        assert!(names.table_row.is(b"t:table-row"));
        assert!(!names.table_row.is(b"table:table-row"));
        assert!(names.document_content.is(b"o:document-content"));
        // Unbound namespaces keep their conventional prefix.
        assert!(names.text_p.is(b"text:p"));
        assert!(names.in_namespace(b"t:x", Ns::Table));
        assert!(!names.in_namespace(b"table:x", Ns::Table));
        // The default namespace and a prefix bound to one namespace.
        let both = root(
            r#"<document-content xmlns="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0">"#,
        );
        assert!(both.body.is(b"body"));
        assert!(both.body.is(b"office:body"));
        assert!(both.in_namespace(b"spreadsheet", Ns::Office));
        assert!(!both.in_namespace(b"table:table", Ns::Office));
        let plain = Names::default();
        assert!(plain.table_cell.is(b"table:table-cell"));
        assert!(!plain.table_cell.is(b"table:table-cells"));
        assert!(plain.a_value_type.is(b"office:value-type"));
    }
}
