//! The spreadsheet files the export and the download links write.

/// The rows of a spreadsheet file (byte order mark first), the header
/// first, read with `delimiter`.
pub fn sheet_rows(bytes: &[u8], delimiter: u8) -> Vec<Vec<String>> {
    let text = bytes
        .strip_prefix("\u{feff}".as_bytes())
        .expect("a byte order mark first");
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .from_reader(text)
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}
