use super::*;

fn links() -> Links {
    Links {
        sheets: vec![
            Some("Sheet1!".into()),
            Some("'My Sheet'!".into()),
            None,
            Some("Sheet1:Sheet3!".into()),
        ],
        names: vec!["Rate".into(), "Total".into()],
        external_names: vec![Vec::new(), Vec::new(), vec!["EDATE".into()]],
    }
}

const ORIGIN: Origin = Origin { row: 4, column: 2 };

fn text(dialect: Dialect, rgce: &[u8]) -> Result<String> {
    let mut out = String::from("kept|");
    let before = out.clone();
    let result = Decompiler::new().decompile(dialect, rgce, ORIGIN, &links(), &mut out);
    match result {
        Ok(Decompiled::Text) => Ok(out[before.len()..].to_owned()),
        Ok(other) => panic!("not text: {other:?}"),
        Err(err) => {
            assert_eq!(out, before, "an error leaves the buffer as it was");
            Err(err)
        }
    }
}

fn both(rgce_xlsb: &[u8], rgce_biff8: &[u8]) -> (String, String) {
    (
        text(Dialect::Xlsb, rgce_xlsb).unwrap(),
        text(Dialect::Biff8, rgce_biff8).unwrap(),
    )
}

fn int(n: u16) -> Vec<u8> {
    let [a, b] = n.to_le_bytes();
    vec![0x1E, a, b]
}

fn num(n: f64) -> Vec<u8> {
    let mut v = vec![0x1F];
    v.extend_from_slice(&n.to_le_bytes());
    v
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A PtgRef: `.xlsb` layout (row u32, column u16).
fn ref_b(row: u32, column: u16) -> Vec<u8> {
    let mut v = vec![0x24];
    v.extend_from_slice(&row.to_le_bytes());
    v.extend_from_slice(&column.to_le_bytes());
    v
}

/// A PtgRef: BIFF8 layout (row u16, column u16).
fn ref_8(row: u16, column: u16) -> Vec<u8> {
    let mut v = vec![0x24];
    v.extend_from_slice(&row.to_le_bytes());
    v.extend_from_slice(&column.to_le_bytes());
    v
}

const REL: u16 = 0xC000;
const ADD_: u8 = 0x03;
const SUB_: u8 = 0x04;
const MUL_: u8 = 0x05;
const POW_: u8 = 0x07;
const PAREN: u8 = 0x15;
const NEG_: u8 = 0x13;

fn func(index: u16) -> Vec<u8> {
    let [a, b] = index.to_le_bytes();
    vec![0x41, a, b]
}

fn func_var(count: u8, index: u16) -> Vec<u8> {
    let [a, b] = index.to_le_bytes();
    vec![0x42, count, a, b]
}

fn b8(rgce: &[u8]) -> String {
    text(Dialect::Biff8, rgce).unwrap()
}

#[test]
fn constants() {
    assert_eq!(b8(&int(42)), "42");
    assert_eq!(b8(&num(2.5)), "2.5");
    assert_eq!(b8(&num(1e20)), "1E+20");
    assert_eq!(b8(&num(1.5e-12)), "1.5E-12");
    assert_eq!(b8(&[0x1D, 1]), "TRUE");
    assert_eq!(b8(&[0x1D, 0]), "FALSE");
    assert_eq!(b8(&[0x1C, 0x07]), "#DIV/0!");
    assert_eq!(b8(&[0x1C, 0x2A]), "#N/A");
    // BIFF8 strings: 8-bit and UTF-16, quotes doubled.
    assert_eq!(
        b8(&[0x17, 4, 0, b'a', b'"', b'b', 0xE9]),
        "\"a\"\"b\u{e9}\""
    );
    assert_eq!(b8(&[0x17, 1, 1, 0xAC, 0x20]), "\"\u{20ac}\"");
    // .xlsb strings: UTF-16 with a 2-byte count.
    assert_eq!(
        text(Dialect::Xlsb, &[0x17, 2, 0, b'h', 0, b'i', 0]).unwrap(),
        "\"hi\""
    );
}

#[test]
fn operators_and_precedence() {
    // 1+2*3
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &int(3), &[MUL_, ADD_]])),
        "1+2*3"
    );
    // (1+2)*3 with PtgParen, and the same without it: parentheses either way.
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &[ADD_, PAREN], &int(3), &[MUL_]])),
        "(1+2)*3"
    );
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &[ADD_], &int(3), &[MUL_]])),
        "(1+2)*3"
    );
    // -(1+2)^2: Excel's negation binds tighter than ^.
    assert_eq!(
        b8(&cat(&[
            &int(1),
            &int(2),
            &[ADD_, PAREN, NEG_],
            &int(2),
            &[POW_]
        ])),
        "-(1+2)^2"
    );
    // -(x^2) without PtgParen keeps its meaning.
    assert_eq!(b8(&cat(&[&int(3), &int(2), &[POW_, NEG_]])), "-(3^2)");
    // 1-(2-3), with and without PtgParen; (1-2)-3 needs none.
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &int(3), &[SUB_, PAREN, SUB_]])),
        "1-(2-3)"
    );
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &int(3), &[SUB_, SUB_]])),
        "1-(2-3)"
    );
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &[SUB_], &int(3), &[SUB_]])),
        "1-2-3"
    );
    // Percent, unary plus, concatenation, comparisons.
    assert_eq!(b8(&cat(&[&int(5), &[0x14]])), "5%");
    assert_eq!(b8(&cat(&[&int(1), &int(5), &[ADD_, 0x14]])), "(1+5)%");
    assert_eq!(b8(&cat(&[&int(5), &[0x12]])), "+5");
    assert_eq!(b8(&cat(&[&int(2), &int(3), &[NEG_, POW_]])), "2^-3");
    for (ptg, sign) in [
        (0x06, "/"),
        (0x08, "&"),
        (0x09, "<"),
        (0x0A, "<="),
        (0x0B, "="),
        (0x0C, ">="),
        (0x0D, ">"),
        (0x0E, "<>"),
    ] {
        assert_eq!(b8(&cat(&[&int(1), &int(2), &[ptg]])), format!("1{sign}2"));
    }
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &[0x08], &int(3), &[0x0B]])),
        "1&2=3"
    );
    assert_eq!(
        b8(&cat(&[&int(1), &int(2), &int(3), &[0x0B, 0x08]])),
        "1&(2=3)"
    );
}

#[test]
fn references_areas_and_relative_forms() {
    let (xlsb, biff8) = both(&ref_b(0, 0), &ref_8(0, 0));
    assert_eq!((xlsb.as_str(), biff8.as_str()), ("$A$1", "$A$1"));
    let (xlsb, biff8) = both(&ref_b(9, 1 | REL), &ref_8(9, 1 | REL));
    assert_eq!((xlsb.as_str(), biff8.as_str()), ("B10", "B10"));
    assert_eq!(b8(&ref_8(9, 1 | 0x4000)), "B$10");
    assert_eq!(b8(&ref_8(9, 1 | 0x8000)), "$B10");
    assert_eq!(
        text(Dialect::Xlsb, &ref_b(1_048_575, 16383 | REL)).unwrap(),
        "XFD1048576"
    );
    // PtgArea, and whole columns and rows.
    let area8 = |r1: u16, r2: u16, c1: u16, c2: u16| {
        let mut v = vec![0x25];
        for x in [r1, r2, c1, c2] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v
    };
    assert_eq!(b8(&area8(0, 9, REL, 2 | REL)), "A1:C10");
    assert_eq!(b8(&area8(0, 65535, REL, REL)), "A:A");
    assert_eq!(b8(&area8(0, 65535, 0, 2)), "$A:$C");
    assert_eq!(b8(&area8(2, 4, REL, 255 | REL)), "3:5");
    let mut area_b = vec![0x25];
    for x in [0u32, 1_048_575] {
        area_b.extend_from_slice(&x.to_le_bytes());
    }
    area_b.extend_from_slice(&(1 | REL).to_le_bytes());
    area_b.extend_from_slice(&(1 | REL).to_le_bytes());
    assert_eq!(text(Dialect::Xlsb, &area_b).unwrap(), "B:B");
    // PtgRefN against the origin C5: one row up, one column left; and an
    // absolute part kept as written.
    let mut refn8 = vec![0x2C];
    refn8.extend_from_slice(&0xFFFFu16.to_le_bytes());
    refn8.extend_from_slice(&(0xFF | REL).to_le_bytes());
    assert_eq!(b8(&refn8), "B4");
    let mut refn8 = vec![0x2C];
    refn8.extend_from_slice(&7u16.to_le_bytes());
    refn8.extend_from_slice(&(3u16 | 0x4000).to_le_bytes());
    assert_eq!(b8(&refn8), "F$8");
    let mut refnb = vec![0x2C];
    refnb.extend_from_slice(&(-2i32).to_le_bytes());
    refnb.extend_from_slice(&(0x3FFE | REL).to_le_bytes());
    assert_eq!(text(Dialect::Xlsb, &refnb).unwrap(), "A3");
    // PtgAreaN: a column span relative to C5.
    let mut arean = vec![0x2D];
    for x in [0u16, 2] {
        arean.extend_from_slice(&x.to_le_bytes());
    }
    for x in [REL, 1 | REL] {
        arean.extend_from_slice(&x.to_le_bytes());
    }
    assert_eq!(b8(&arean), "C5:D7");
    // Deleted references.
    assert_eq!(b8(&[0x2A, 0, 0, 0, 0]), "#REF!");
    assert_eq!(b8(&[0x2B, 0, 0, 0, 0, 0, 0, 0, 0]), "#REF!");
    assert_eq!(
        text(Dialect::Xlsb, &[0x2A, 0, 0, 0, 0, 0, 0]).unwrap(),
        "#REF!"
    );
    // Range, intersection and union operators.
    assert_eq!(
        b8(&cat(&[&ref_8(0, REL), &ref_8(1, 1 | REL), &[0x11]])),
        "A1:B2"
    );
    assert_eq!(
        b8(&cat(&[&ref_8(0, REL), &ref_8(1, 1 | REL), &[0x0F]])),
        "A1 B2"
    );
    let union = cat(&[
        &ref_8(0, REL),
        &ref_8(1, 1 | REL),
        &[0x10, PAREN],
        &func_var(1, 4),
    ]);
    assert_eq!(b8(&union), "SUM((A1,B2))");
    // A union as an argument without PtgParen gets its parentheses.
    let union = cat(&[&ref_8(0, REL), &ref_8(1, 1 | REL), &[0x10], &func_var(1, 4)]);
    assert_eq!(b8(&union), "SUM((A1,B2))");
}

#[test]
fn three_d_references_through_the_link_table() {
    let mut r = vec![0x3A, 1, 0];
    r.extend_from_slice(&0u16.to_le_bytes());
    r.extend_from_slice(&(REL).to_le_bytes());
    assert_eq!(b8(&r), "'My Sheet'!A1");
    let mut a = vec![0x3B, 3, 0];
    for x in [0u16, 1, 0, 1] {
        a.extend_from_slice(&x.to_le_bytes());
    }
    assert_eq!(b8(&a), "Sheet1:Sheet3!$A$1:$B$2");
    let mut rb = vec![0x5A, 0, 0];
    rb.extend_from_slice(&2u32.to_le_bytes());
    rb.extend_from_slice(&(3 | REL).to_le_bytes());
    assert_eq!(text(Dialect::Xlsb, &rb).unwrap(), "Sheet1!D3");
    assert_eq!(b8(&[0x3C, 0, 0, 0, 0, 0, 0]), "Sheet1!#REF!");
    // Another workbook's sheet: unsupported; an index past the table:
    // malformed.
    let err = b8_err(&[0x3A, 2, 0, 0, 0, 0, 0]);
    assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
    let err = b8_err(&[0x3A, 9, 0, 0, 0, 0, 0]);
    assert!(err.to_string().contains("past the workbook's 4"), "{err}");
    // Sheet names as Excel quotes them.
    let name = |n: &str| {
        let mut out = String::new();
        push_sheet_names(&mut out, n, None);
        out
    };
    assert_eq!(name("Data"), "Data");
    assert_eq!(name("My Sheet"), "'My Sheet'");
    assert_eq!(name("it's"), "'it''s'");
    assert_eq!(name("2024"), "'2024'");
    assert_eq!(name("A1"), "'A1'");
    assert_eq!(name("R1C1"), "'R1C1'");
    assert_eq!(name("Données"), "Données");
    assert_eq!(
        Links::sheet_prefix(&["My Sheet", "Other"], 0, 1).as_deref(),
        Some("'My Sheet:Other'!")
    );
    assert_eq!(
        Links::sheet_prefix(&["A", "Other"], 1, 1).as_deref(),
        Some("Other!")
    );
    assert_eq!(Links::sheet_prefix(&["A"], 0, 1), None);
    assert_eq!(Links::sheet_prefix(&["A"], -1, -1), None);
}

fn b8_err(rgce: &[u8]) -> Error {
    text(Dialect::Biff8, rgce).unwrap_err()
}

#[test]
fn functions_names_and_attributes() {
    // PtgFunc with its fixed count: ROUND(2.5,0), NOW(), PI()*2.
    assert_eq!(b8(&cat(&[&num(2.5), &int(0), &func(27)])), "ROUND(2.5,0)");
    assert_eq!(b8(&func(74)), "NOW()");
    assert_eq!(b8(&cat(&[&func(19), &int(2), &[MUL_]])), "PI()*2");
    // PtgFuncVar: IF with its jump hints (PtgAttrIf, PtgAttrGoto skipped),
    // a missing argument, nesting.
    let ifs = cat(&[
        &ref_8(0, REL),
        &int(1),
        &[0x0D],
        &[0x19, 0x02, 9, 0],
        &[0x17, 3, 0, b'y', b'e', b's'],
        &[0x19, 0x08, 3, 0],
        &[0x16],
        &[0x19, 0x08, 3, 0],
        &func_var(3, 1),
    ]);
    assert_eq!(b8(&ifs), "IF(A1>1,\"yes\",)");
    assert_eq!(
        b8(&cat(&[
            &int(1),
            &int(2),
            &func_var(2, 7),
            &int(3),
            &func_var(2, 6)
        ])),
        "MIN(MAX(1,2),3)"
    );
    // PtgAttrSum, PtgAttrSemi and spaces skipped, CHOOSE's jump table.
    assert_eq!(
        b8(&cat(&[
            &[0x19, 0x01, 0, 0],
            &ref_8(0, REL),
            &[0x19, 0x40, 0, 2],
            &[0x19, 0x10, 0, 0]
        ])),
        "SUM(A1)"
    );
    let choose = cat(&[
        &int(2),
        &[0x19, 0x04, 2, 0, 8, 0, 12, 0, 16, 0],
        &int(10),
        &[0x19, 0x08, 0, 0],
        &int(20),
        &[0x19, 0x08, 0, 0],
        &func_var(3, 100),
    ]);
    assert_eq!(b8(&choose), "CHOOSE(2,10,20)");
    // PtgName (1-based), and a user-defined function named by one.
    assert_eq!(b8(&[0x23, 2, 0, 0, 0]), "Total");
    assert_eq!(text(Dialect::Xlsb, &[0x43, 1, 0, 0, 0]).unwrap(), "Rate");
    assert_eq!(
        b8(&cat(&[
            &[0x23, 1, 0, 0, 0],
            &int(1),
            &int(2),
            &func_var(3, 0xFF)
        ])),
        "Rate(1,2)"
    );
    // An add-in's function: PtgNameX first, then PtgFuncVar 255.
    let addin = cat(&[
        &[0x39, 2, 0, 1, 0, 0, 0],
        &ref_8(0, REL),
        &int(1),
        &func_var(3, 0xFF),
    ]);
    assert_eq!(b8(&addin), "EDATE(A1,1)");
    // The PtgMem tokens are skipped, the expression after them kept.
    let mem = cat(&[
        &[0x26, 0, 0, 0, 0, 7, 0],
        &ref_8(0, REL),
        &ref_8(1, 1 | REL),
        &[0x11],
    ]);
    assert_eq!(b8(&mem), "A1:B2");
    assert_eq!(b8(&cat(&[&[0x29, 3, 0], &int(4)])), "4");
}

#[test]
fn shared_formula_and_data_table_cells() {
    let mut out = String::new();
    let mut decompiler = Decompiler::new();
    assert_eq!(
        decompiler
            .decompile(
                Dialect::Biff8,
                &[0x01, 3, 0, 2, 0],
                ORIGIN,
                &links(),
                &mut out
            )
            .unwrap(),
        Decompiled::Shared {
            row: 3,
            column: Some(2)
        }
    );
    assert_eq!(
        decompiler
            .decompile(
                Dialect::Xlsb,
                &[0x01, 3, 0, 0, 0],
                ORIGIN,
                &links(),
                &mut out
            )
            .unwrap(),
        Decompiled::Shared {
            row: 3,
            column: None
        }
    );
    assert!(out.is_empty());
    let err = b8_err(&[0x02, 3, 0, 2, 0]);
    assert!(err.to_string().contains("PtgTbl"), "{err}");
}

#[test]
fn unsupported_tokens_are_named() {
    for (rgce, what) in [
        (&[0x20, 0, 0, 0, 0, 0, 0, 0][..], "0x20"),
        (&[0x39, 0, 0, 1, 0, 0, 0][..], "0x39"),
        (&[0x39, 2, 0, 2, 0, 0, 0][..], "0x39"),
        (&[0x18, 0x19][..], "0x18"),
        (&[0x1A][..], "0x1a"),
    ] {
        let err = b8_err(rgce);
        assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
        assert!(err.to_string().contains(what), "{err}");
    }
    // A macro command (the Cetab bit).
    let err = b8_err(&func_var(0, 0x8001));
    assert!(err.to_string().contains("macro command"), "{err}");
}

#[test]
fn hostile_streams_are_errors() {
    // Cut short at every byte of a formula with every kind of field.
    let full = cat(&[
        &ref_8(0, REL),
        &[0x17, 2, 0, b'a', b'b'],
        &[0x08],
        &num(1.5),
        &[0x3A, 0, 0, 1, 0, 1, 0],
        &func_var(3, 4),
    ]);
    assert_eq!(b8(&full), "SUM(A1&\"ab\",1.5,Sheet1!$B$2)");
    for end in 0..full.len() {
        // Only `A1` and `A1&"ab"` are whole formulas.
        let cut = text(Dialect::Biff8, &full[..end]);
        assert_eq!(cut.is_ok(), end == 5 || end == 11, "cut at {end}: {cut:?}");
        // Read with the other layout, the stream never panics either.
        let _ = text(Dialect::Xlsb, &full[..end]);
    }
    // A function number past the table, one the table leaves unused.
    assert!(b8_err(&func(600)).to_string().contains("not a built-in"));
    assert!(b8_err(&func(202)).to_string().contains("not a built-in"));
    // A varying-count function through PtgFunc.
    assert!(matches!(b8_err(&func(4)).kind(), ErrorKind::Unsupported(_)));
    // Too few operands, too many, a name past the names, an error code.
    assert!(b8_err(&[ADD_]).to_string().contains("takes 2"));
    assert!(
        b8_err(&cat(&[&int(1), &int(2)]))
            .to_string()
            .contains("leave 2")
    );
    assert!(b8_err(&func_var(2, 4)).to_string().contains("takes 2"));
    assert!(
        b8_err(&[0x23, 9, 0, 0, 0])
            .to_string()
            .contains("past the workbook's 2 names")
    );
    assert!(b8_err(&[0x23, 0, 0, 0, 0]).to_string().contains("past"));
    assert!(b8_err(&[0x1C, 0x99]).to_string().contains("unknown code"));
    assert!(text(Dialect::Biff8, &[]).is_err());
    // Deep nesting: operands past the bound are refused.
    let deep: Vec<u8> = (0..MAX_OPERANDS + 1).flat_map(|_| int(1)).collect();
    assert!(matches!(
        b8_err(&deep).kind(),
        ErrorKind::LimitExceeded { .. }
    ));
    // Long chains within the bound decompile: 1+1+...+1.
    let mut chain = int(1);
    for _ in 0..5000 {
        chain.extend(int(1));
        chain.push(ADD_);
    }
    assert_eq!(b8(&chain).len(), 10001);
    // Text past the bound is refused: nested parentheses grow the text
    // faster than the tokens.
    let mut parens = int(1);
    parens.extend(std::iter::repeat_n(PAREN, 40_000));
    assert!(matches!(
        b8_err(&parens).kind(),
        ErrorKind::LimitExceeded { .. }
    ));
}

#[test]
fn the_function_table_has_known_entries() {
    for (index, name, count) in [
        (0, "COUNT", ftab::VAR),
        (4, "SUM", ftab::VAR),
        (27, "ROUND", 2),
        (65, "DATE", 3),
        (102, "VLOOKUP", ftab::VAR),
        (111, "CHAR", 1),
        (183, "PRODUCT", ftab::VAR),
        (219, "ADDRESS", ftab::VAR),
        (228, "SUMPRODUCT", ftab::VAR),
        (336, "CONCATENATE", ftab::VAR),
        (344, "SUBTOTAL", ftab::VAR),
        (345, "SUMIF", ftab::VAR),
        (346, "COUNTIF", 2),
        (480, "IFERROR", 2),
        (484, "AVERAGEIFS", ftab::VAR),
    ] {
        assert_eq!(ftab::function(index), Some((name, count)), "{index}");
    }
    assert_eq!(ftab::function(255), None);
    assert_eq!(ftab::function(485), None);
}

#[test]
fn random_streams_never_panic() {
    // A small stand-in for the fuzz target (fuzz/fuzz_targets/
    // decompile_formula.rs): random streams built from real token bytes
    // and random ones, through crate::fuzzing::decompile_formula.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let tokens = [
        0x03u8, 0x04, 0x05, 0x07, 0x08, 0x0B, 0x0F, 0x10, 0x11, 0x13, 0x14, 0x15, 0x16, 0x17, 0x19,
        0x1C, 0x1D, 0x1E, 0x1F, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x29, 0x2A, 0x2C, 0x2D, 0x3A,
        0x3B, 0x41, 0x42, 0x44, 0x01,
    ];
    let mut ok = 0;
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let stream: Vec<u8> = (0..len)
            .map(|i| {
                let r = next();
                if i % 3 == 0 {
                    tokens[(r % tokens.len() as u64) as usize]
                } else {
                    (r % 4) as u8
                }
            })
            .collect();
        if crate::fuzzing::decompile_formula(&stream) > 0 {
            ok += 1;
        }
    }
    assert!(ok > 100, "only {ok} streams decompiled");
}

#[test]
fn nested_prefixes_are_refused_before_their_work_turns_quadratic() {
    // 1, then 60,000 unary minuses: each would move the whole text.
    let mut rgce = int(1);
    rgce.extend(std::iter::repeat_n(NEG_, 60_000));
    let err = text(Dialect::Xlsb, &rgce).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("moved"), "{err}");
    // Excel's own nesting depth stays well inside the budget.
    let mut rgce = int(1);
    rgce.extend(std::iter::repeat_n(NEG_, 64));
    assert_eq!(
        text(Dialect::Xlsb, &rgce).unwrap(),
        format!("{}1", "-".repeat(64))
    );
}
