//! Rows deserialised into structs, tuples and maps, on workbooks written by
//! rust_xlsxwriter: header names, header row and column offset, positions,
//! borrowed `&str`, `Option` for empty cells, dates, and errors that name
//! the sheet, row, column and field.

#![cfg(feature = "serde")]

use std::collections::BTreeMap;

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook as Writer};
use serde::Deserialize;
use sheetstream::{DeserializeOptions, ErrorKind, Workbook};

/// A sheet "People" with a header in row 1 and five records, one row left
/// empty but formatted, and a sheet "Offset" holding the same table from
/// B3 with notes in column A.
fn sample() -> Vec<u8> {
    let mut writer = Writer::new();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let header = [
        "Name",
        "Age",
        "Score",
        "Member",
        "Joined",
        "Last seen",
        "Code",
    ];
    type Person = (&'static str, Option<f64>, f64, bool, (u16, u8, u8));
    let people: [Person; 4] = [
        ("Ann", Some(34.0), 9.5, true, (2020, 1, 31)),
        ("Bo", None, 7.25, false, (2021, 6, 1)),
        ("Cy", Some(51.0), -3.0, true, (1999, 12, 31)),
        ("Di", Some(18.0), 0.0, false, (2024, 2, 29)),
    ];
    for (name, column_offset, row_offset) in [("People", 0u16, 0u32), ("Offset", 1, 2)] {
        let sheet = writer.add_worksheet().set_name(name).unwrap();
        for (i, title) in header.iter().enumerate() {
            sheet
                .write_string(row_offset, column_offset + i as u16, *title)
                .unwrap();
        }
        let mut row = row_offset + 1;
        for (n, (person, age, score, member, (y, m, d))) in people.iter().enumerate() {
            if n == 2 {
                // A formatted row without cells, then a note left of the table.
                sheet.set_row_height(row, 30).unwrap();
                row += 1;
                if column_offset > 0 {
                    sheet
                        .write_string(row, 0, "note left of the table")
                        .unwrap();
                    row += 1;
                }
            }
            let c = column_offset;
            sheet.write_string(row, c, *person).unwrap();
            if let Some(age) = age {
                sheet.write_number(row, c + 1, *age).unwrap();
            }
            sheet.write_number(row, c + 2, *score).unwrap();
            sheet.write_boolean(row, c + 3, *member).unwrap();
            let joined = ExcelDateTime::from_ymd(*y, *m, *d).unwrap();
            sheet
                .write_datetime_with_format(row, c + 4, &joined, &date)
                .unwrap();
            let seen = ExcelDateTime::from_ymd(*y, *m, *d)
                .unwrap()
                .and_hms(13, 45, 30)
                .unwrap();
            sheet
                .write_datetime_with_format(row, c + 5, &seen, &stamp)
                .unwrap();
            // Codes: numbers, except one written as text.
            if n == 1 {
                sheet.write_string(row, c + 6, "0042").unwrap();
            } else {
                sheet.write_number(row, c + 6, 100.0 + n as f64).unwrap();
            }
            row += 1;
        }
    }
    writer.save_to_buffer().unwrap()
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
struct Person<'a> {
    name: &'a str,
    age: Option<u8>,
    score: f64,
    member: bool,
    joined: String,
    #[serde(rename = "Last seen")]
    last_seen: String,
    code: String,
}

#[test]
fn by_header_name_with_borrowed_text_and_options() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let mut records = workbook.deserialize("People").unwrap();
    let headers: Vec<&str> = records.headers().map(|(_, name)| name).collect();
    assert_eq!(
        headers,
        [
            "Name",
            "Age",
            "Score",
            "Member",
            "Joined",
            "Last seen",
            "Code"
        ]
    );
    let mut people = Vec::new();
    while let Some(person) = records.next_row::<Person>().unwrap() {
        // Borrowed from the reader: copy out what outlives the call.
        people.push((
            person.name.to_owned(),
            person.age,
            person.score,
            person.member,
            person.joined,
            person.last_seen,
            person.code,
            records.row_index(),
        ));
    }
    assert_eq!(people.len(), 4);
    assert_eq!(
        people[0],
        (
            "Ann".to_owned(),
            Some(34),
            9.5,
            true,
            // A date into a String: the text the CSV writes (and Display).
            "2020-01-31".to_owned(),
            "2020-01-31T13:45:30".to_owned(),
            "100".to_owned(),
            1
        )
    );
    assert_eq!(people[1].1, None, "an empty cell is None");
    assert_eq!(people[1].6, "0042", "text stays text");
    // The formatted row without cells is skipped.
    assert_eq!(people[2].0, "Cy");
    assert_eq!(people[2].7, 4);
    assert_eq!(people[3].4, "2024-02-29");
}

#[test]
fn header_row_and_column_offset() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let options = DeserializeOptions::new().header_row(2).column_offset(1);
    let mut records = workbook.deserialize_with("Offset", options).unwrap();
    assert_eq!(records.headers().next(), Some((1, "Name")));
    let mut names = Vec::new();
    while let Some(person) = records.next_row::<Person>().unwrap() {
        names.push(person.name.to_owned());
    }
    // The note in column A is left of the table: that row is empty to us.
    assert_eq!(names, ["Ann", "Bo", "Cy", "Di"]);
}

#[test]
fn by_position_as_tuples_and_sequences() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let rows: Vec<(String, Option<f64>, f64, bool)> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[1], ("Bo".to_owned(), None, 7.25, false));

    // Without a header the header row is a record too; struct fields map by
    // position from the column offset.
    #[derive(Debug, Deserialize)]
    struct Pair {
        score: Option<String>,
        member: Option<String>,
    }
    let options = DeserializeOptions::new().no_header().column_offset(2);
    let pairs: Vec<Pair> = workbook
        .deserialize_with("People", options)
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(pairs.len(), 5);
    assert_eq!(pairs[0].member.as_deref(), Some("Member"));
    assert_eq!(pairs[0].score.as_deref(), Some("Score"));
    assert_eq!(pairs[1].score.as_deref(), Some("9.5"));
    assert_eq!(pairs[1].member.as_deref(), Some("TRUE"));

    // A sequence runs to the last cell of the row, empty cells as None.
    let mut records = workbook
        .deserialize_with("People", DeserializeOptions::new().no_header())
        .unwrap();
    let _header: Vec<String> = records.next_row().unwrap().unwrap();
    let first: Vec<Option<String>> = records.next_row().unwrap().unwrap();
    assert_eq!(first.len(), 7);
    let second: Vec<Option<String>> = records.next_row().unwrap().unwrap();
    assert_eq!(second[1], None);
    assert_eq!(second[6].as_deref(), Some("0042"));
    // A single value: the first column.
    let name: &str = records.next_row().unwrap().unwrap();
    assert_eq!(name, "Cy");
}

#[test]
fn maps_by_header_and_by_column_letter() {
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let mut records = workbook.deserialize("People").unwrap();
    let row: BTreeMap<String, serde_json::Value> = records.next_row().unwrap().unwrap();
    assert_eq!(row["Name"], "Ann");
    assert_eq!(row["Score"], 9.5);
    assert_eq!(row["Member"], true);
    assert_eq!(row["Joined"], "2020-01-31");
    let row: BTreeMap<String, serde_json::Value> = records.next_row().unwrap().unwrap();
    assert!(!row.contains_key("Age"), "empty cells are left out");

    drop(records);
    let mut records = workbook
        .deserialize_with("People", DeserializeOptions::new().no_header())
        .unwrap();
    let row: BTreeMap<String, String> = records.next_row().unwrap().unwrap();
    assert_eq!(row["A"], "Name");
    assert_eq!(row["G"], "Code");
}

#[test]
fn numbers_from_text_enums_and_newtypes() {
    #[derive(Debug, Deserialize, PartialEq)]
    enum Name {
        Ann,
        Bo,
        Cy,
        Di,
    }
    #[derive(Debug, Deserialize)]
    struct Score(f32);
    #[derive(Debug, Deserialize)]
    struct Row {
        #[serde(rename = "Name")]
        name: Name,
        #[serde(rename = "Code")]
        code: u64,
        #[serde(rename = "Score")]
        score: Score,
        #[serde(rename = "Joined")]
        joined: f64,
    }
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let rows: Vec<Row> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[1].name, Name::Bo);
    assert_eq!(rows[1].code, 42, "text that holds a number");
    assert_eq!(rows[2].code, 102);
    assert_eq!(rows[0].score.0, 9.5);
    assert_eq!(rows[0].joined, 43_861.0, "a date as its serial");
}

#[test]
fn errors_name_sheet_row_column_and_field() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        #[serde(rename = "Name")]
        name: String,
        #[serde(rename = "Age")]
        age: u8,
    }
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let mut records = workbook.deserialize("People").unwrap();
    assert!(records.next_row::<Strict>().unwrap().is_some());
    // Bo has no age: a missing required field, at the Age column.
    let err = records.next_row::<Strict>().unwrap_err();
    let location = err.location();
    assert_eq!(location.sheet.as_deref(), Some("People"));
    assert_eq!((location.row, location.column), (Some(3), Some(2)));
    let ErrorKind::Deserialize { field, message } = err.kind() else {
        panic!("{err}");
    };
    assert_eq!(field.as_deref(), Some("Age"));
    assert!(message.contains("empty"), "{message}");
    assert!(err.to_string().contains("field `Age`"), "{err}");
    assert!(err.to_string().contains("sheet 'People'"), "{err}");
    assert!(err.to_string().contains("cell B3"), "{err}");
    // The reader goes on with the next row.
    assert!(records.next_row::<Strict>().unwrap().is_some());

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct WrongType {
        #[serde(rename = "Score")]
        score: f64,
        #[serde(rename = "Member")]
        member: u32,
    }
    drop(records);
    let mut records = workbook.deserialize("People").unwrap();
    let err = records.next_row::<WrongType>().unwrap_err();
    let text = err.to_string();
    assert!(text.contains("field `Member`"), "{text}");
    assert!(text.contains("the boolean TRUE"), "{text}");
    assert!(text.contains("cell D2"), "{text}");

    // By position, the field name comes from the struct's field list.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Positional {
        name: String,
        age: f64,
        score: i32,
    }
    drop(records);
    let mut records = workbook
        .deserialize_with("People", DeserializeOptions::new().header_row(0))
        .unwrap();
    let tuple_error = records.next_row::<(String, f64, i32)>().unwrap_err();
    drop(records);
    let mut records = workbook
        .deserialize_with("People", DeserializeOptions::new().no_header())
        .unwrap();
    let err = records.next_row::<Positional>().unwrap_err();
    let ErrorKind::Deserialize { field, .. } = err.kind() else {
        panic!("{err}");
    };
    assert_eq!(field.as_deref(), Some("age"));
    assert_eq!(err.location().column, Some(2));
    // Ann's score 9.5 is no integer.
    let err = &tuple_error;
    assert!(err.to_string().contains("9.5"), "{err}");
    assert_eq!(err.location().column, Some(3));
}

#[test]
fn a_missing_header_row_is_an_error_and_an_empty_sheet_has_no_records() {
    let mut writer = Writer::new();
    writer.add_worksheet().write_string(5, 0, "late").unwrap();
    writer.add_worksheet();
    let mut workbook = Workbook::from_bytes(writer.save_to_buffer().unwrap()).unwrap();
    let err = workbook.deserialize(0).err().unwrap();
    assert!(err.to_string().contains("header row 1 is missing"), "{err}");
    let mut records = workbook.deserialize(1).unwrap();
    assert_eq!(records.headers().count(), 0);
    assert!(records.next_row::<(f64,)>().unwrap().is_none());
}

#[cfg(feature = "chrono")]
#[test]
fn dates_into_chrono() {
    #[derive(Debug, Deserialize)]
    struct Dates {
        #[serde(rename = "Joined")]
        joined: chrono::NaiveDate,
        #[serde(rename = "Last seen")]
        last_seen: chrono::NaiveDateTime,
    }
    #[derive(Debug, Deserialize)]
    struct Times {
        #[serde(rename = "Last seen")]
        last_seen: chrono::NaiveTime,
        #[serde(rename = "Joined")]
        joined: chrono::NaiveDateTime,
    }
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let rows: Vec<Dates> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[3].joined.to_string(), "2024-02-29");
    assert_eq!(rows[0].last_seen.to_string(), "2020-01-31 13:45:30");
    let rows: Vec<Times> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[0].last_seen.to_string(), "13:45:30");
    assert_eq!(rows[2].joined.to_string(), "1999-12-31 00:00:00");

    // A date-time into a date-only type would lose its time: an error.
    #[derive(Debug, Deserialize)]
    struct Cut {
        #[serde(rename = "Last seen")]
        _last_seen: chrono::NaiveDate,
    }
    let err = workbook
        .deserialize("People")
        .unwrap()
        .next_row::<Cut>()
        .unwrap_err();
    assert!(err.to_string().contains("has a time of day"), "{err}");
}

#[cfg(feature = "jiff")]
#[test]
fn dates_into_jiff() {
    #[derive(Debug, Deserialize)]
    struct Dates {
        #[serde(rename = "Joined")]
        joined: jiff::civil::Date,
        #[serde(rename = "Last seen")]
        last_seen: jiff::civil::DateTime,
    }
    #[derive(Debug, Deserialize)]
    struct Times {
        #[serde(rename = "Last seen")]
        last_seen: jiff::civil::Time,
    }
    let mut workbook = Workbook::from_bytes(sample()).unwrap();
    let rows: Vec<Dates> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[3].joined.to_string(), "2024-02-29");
    assert_eq!(rows[0].last_seen.to_string(), "2020-01-31T13:45:30");
    let rows: Vec<Times> = workbook
        .deserialize("People")
        .unwrap()
        .iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows[1].last_seen.to_string(), "13:45:30");
}
