//! One test per feature of the format language. The expectations are what
//! Excel's documentation ("Number format codes", "Review guidelines for
//! customizing a number format", ECMA-376 Part 1 18.8.30-31) says Excel
//! shows, not this renderer's output.

use super::{NumberFormat, builtin_code};
use crate::date::DateSystem;

fn show(code: &str, number: f64) -> String {
    let mut out = String::new();
    NumberFormat::parse(code).write_number(number, &mut out);
    out
}

fn show_text(code: &str, text: &str) -> String {
    let mut out = String::new();
    NumberFormat::parse(code).write_text(text, &mut out);
    out
}

fn check(code: &str, cases: &[(f64, &str)]) {
    for &(number, expected) in cases {
        assert_eq!(show(code, number), expected, "{number} in {code:?}");
    }
}

#[test]
fn digit_placeholders() {
    // The issue's own examples.
    check("00000", &[(501.0, "00501"), (123_456.0, "123456")]);
    check(
        "0.00",
        &[(1234.5, "1234.50"), (0.125, "0.13"), (-0.125, "-0.13")],
    );
    // Excel docs: 8.9 in #.000 is 8.900; .631 in 0.# is 0.6; 12 in #.0# is 12.0;
    // 1234.568 in #.0# is 1234.57; 44.398, 102.65, 2.8 in ???.??? align.
    check("#.000", &[(8.9, "8.900")]);
    check("0.#", &[(0.631, "0.6")]);
    check("#.0#", &[(12.0, "12.0"), (1234.568, "1234.57")]);
    check(
        "???.???",
        &[(44.398, " 44.398"), (102.65, "102.65 "), (2.8, "  2.8  ")],
    );
    // `#` shows no insignificant zero; `0` does.
    check("#.##", &[(0.5, ".5"), (0.0, ".")]);
    check("#", &[(0.0, ""), (7.0, "7")]);
    check("0", &[(0.4, "0"), (2.5, "3"), (-2.5, "-3")]);
    // Digits beyond the placeholders all show.
    check("0.0", &[(123_456.78, "123456.8")]);
}

#[test]
fn literal_digits_between_placeholders() {
    check(
        "000-00-0000",
        &[(123_456_789.0, "123-45-6789"), (12345.0, "000-01-2345")],
    );
    check("(###) ###-####", &[(5_551_234_567.0, "(555) 123-4567")]);
}

#[test]
fn thousands_separator_and_scaling() {
    // Excel docs: 12000 in #,### is 12,000; 12000 in #, is 12;
    // 12200000 in 0.0,, is 12.2.
    check("#,###", &[(12000.0, "12,000")]);
    check("#,", &[(12000.0, "12")]);
    check("0.0,,", &[(12_200_000.0, "12.2")]);
    check(
        "#,##0.00",
        &[
            (1_234_567.891, "1,234,567.89"),
            (0.0, "0.00"),
            (-1000.0, "-1,000.00"),
            (100.0, "100.00"),
        ],
    );
    check("0,000", &[(5.0, "0,005")]);
    check("#,##0", &[(1e20, "100,000,000,000,000,000,000")]);
}

#[test]
fn percent() {
    check("0%", &[(0.125, "13%"), (1.0, "100%")]);
    check("0.00%", &[(0.125, "12.50%"), (0.07, "7.00%")]);
}

#[test]
fn scientific() {
    // Excel docs: 12200000 in 0.00E+00 is 1.22E+07; 0.000123 is 1.23E-04.
    check(
        "0.00E+00",
        &[
            (12_200_000.0, "1.22E+07"),
            (0.000_123, "1.23E-04"),
            (0.0, "0.00E+00"),
            (-12345.0, "-1.23E+04"),
            (9.999, "1.00E+01"),
        ],
    );
    check("0.00E-00", &[(12345.0, "1.23E04"), (0.0123, "1.23E-02")]);
    // Engineering notation: the exponent a multiple of three.
    check(
        "##0.0E+0",
        &[
            (12345.0, "12.3E+3"),
            (1_234_567.0, "1.2E+6"),
            (0.001_5, "1.5E-3"),
        ],
    );
    check("00.00E+00", &[(12345.0, "12.35E+03")]);
}

#[test]
fn fractions() {
    // Excel docs: 5.25 in # ???/??? is 5 1/4 (aligned); 5.3 in # ???/???
    // is 5 3/10; built-in 12 and 13.
    check(
        "# ?/?",
        &[
            (5.25, "5 1/4"),
            (1.5, "1 1/2"),
            (0.5, " 1/2"),
            (2.0, "2    "),
        ],
    );
    check("# ??/??", &[(5.3, "5  3/10")]);
    check("# ??/??", &[(std::f64::consts::PI, "3 14/99")]);
    check("# ???/???", &[(std::f64::consts::PI, "3  16/113")]);
    // A fixed denominator is not reduced.
    check("# ?/8", &[(0.5, " 4/8"), (1.375, "1 3/8")]);
    check("# ??/16", &[(2.125, "2  2/16")]);
    // No whole part: an improper fraction.
    check("?/?", &[(1.25, "5/4")]);
    check("0 ?/?", &[(0.0, "0    ")]);
    check("?/?", &[(0.0, "0/1")]);
    check("# ?/?", &[(-1.5, "-1 1/2")]);
}

#[test]
fn sections_by_sign_and_zero() {
    let code = "#,##0.00;[Red](#,##0.00);\"zero\";\"text: \"@";
    check(
        code,
        &[(1234.5, "1,234.50"), (-1234.5, "(1,234.50)"), (0.0, "zero")],
    );
    assert_eq!(show_text(code, "abc"), "text: abc");
    // Two sections: zero takes the first.
    check("0;-0.0", &[(0.0, "0"), (-2.0, "-2.0"), (3.0, "3")]);
    // An empty section hides its numbers.
    check("0;;", &[(-5.0, ""), (0.0, ""), (5.0, "5")]);
    check(";;;", &[(5.0, "")]);
    assert_eq!(show_text(";;;", "hidden"), "");
    // One section: the minus sign comes before everything.
    check("\"$\"0", &[(-5.0, "-$5")]);
}

#[test]
fn conditions() {
    let phone = "[<=9999999]###-####;(###) ###-####";
    check(
        phone,
        &[
            (5_551_234.0, "555-1234"),
            (8_005_551_234.0, "(800) 555-1234"),
        ],
    );
    let code = "[Red][<=100]0;[Blue][>100]0.0";
    check(code, &[(50.0, "50"), (150.0, "150.0")]);
    // No section's condition holds: General.
    check("[>100]0;[<-100]0", &[(5.0, "5")]);
    // A section chosen by its condition shows no sign; the rest does.
    let code = "[>100]\"big\";[<-100]\"small: \"0;0.0";
    check(
        code,
        &[(500.0, "big"), (-500.0, "small: 500"), (-1.0, "-1.0")],
    );
}

#[test]
fn literal_text_forms() {
    check("0\" units\"", &[(3.0, "3 units")]);
    check("0\\h", &[(3.0, "3h")]);
    check("0 \\k\\g", &[(3.0, "3 kg")]);
    // `_x` is a space the width of x; `*x` fills with x, here once.
    check("_(0_)", &[(3.0, " 3 ")]);
    check("*-0", &[(3.0, "-3")]);
    check("$0.00", &[(3.0, "$3.00")]);
    check("0 \"a;b\"", &[(3.0, "3 a;b")]);
}

#[test]
fn colors_and_locale_brackets() {
    check("[Red]0.0", &[(1.25, "1.3")]);
    check("[Color10]0", &[(7.0, "7")]);
    check("[$€-407] #,##0.00", &[(1234.5, "€ 1,234.50")]);
    check("#,##0.00 [$€-407]", &[(-1234.5, "-1,234.50 €")]);
    check("[$-409]0.0", &[(2.0, "2.0")]);
    check("[$USD] 0", &[(2.0, "USD 2")]);
}

#[test]
fn text_sections() {
    assert_eq!(show_text("@", "abc"), "abc");
    assert_eq!(show_text("\"[\"@\"]\"", "abc"), "[abc]");
    assert_eq!(show_text("0.00", "abc"), "abc");
    assert_eq!(show_text("0;0;0", "abc"), "abc");
    // A number in a lone text section shows as General.
    check("@", &[(1234.5, "1234.5")]);
    assert_eq!(show_text(builtin_code(44), "x"), " x ");
}

#[test]
fn dates() {
    // 45000 is 2023-03-15, a Wednesday; .75 is 18:00.
    let serial = 45_000.75;
    check("yyyy-mm-dd", &[(serial, "2023-03-15")]);
    check("m/d/yy", &[(serial, "3/15/23")]);
    check("d-mmm-yy", &[(serial, "15-Mar-23")]);
    check(
        "dddd, mmmm d, yyyy",
        &[(serial, "Wednesday, March 15, 2023")],
    );
    check("ddd mmm", &[(serial, "Wed Mar")]);
    check("mmmmm", &[(serial, "M")]);
    check("yy yyyy", &[(serial, "23 2023")]);
    check("h:mm", &[(serial, "18:00")]);
    check("hh:mm:ss", &[(0.25, "06:00:00")]);
    check(
        "h:mm AM/PM",
        &[(serial, "6:00 PM"), (0.0, "12:00 AM"), (0.5, "12:00 PM")],
    );
    check("h A/P", &[(0.25, "6 A")]);
    check("h a/p", &[(0.75, "6 p")]);
    // AM/PM alone is a time section too.
    check("AM/PM", &[(0.75, "PM")]);
    check("A/P", &[(0.25, "A")]);
    check("\"AM/PM\"0", &[(1.0, "AM/PM1")]);
    // Excel's fictitious 1900-02-29 and its day 0.
    check(
        "yyyy-mm-dd",
        &[
            (60.0, "1900-02-29"),
            (61.0, "1900-03-01"),
            (0.0, "1900-01-00"),
        ],
    );
    check("dddd", &[(1.0, "Sunday"), (61.0, "Thursday")]);
}

#[test]
fn month_or_minute_by_context() {
    let serial = 45_000.0 + (14.0 * 3600.0 + 5.0 * 60.0 + 9.0) / 86_400.0;
    check("m", &[(serial, "3")]);
    check("h:m", &[(serial, "14:5")]);
    check("mm:ss", &[(serial, "05:09")]);
    check("hh \"h\" mm", &[(serial, "14 h 05")]);
    check("yyyy-mm-dd hh:mm:ss", &[(serial, "2023-03-15 14:05:09")]);
}

#[test]
fn elapsed_time_and_fractional_seconds() {
    // 1.5 days is 36 hours; 2 days 3:04:05.678.
    check("[h]:mm", &[(1.5, "36:00")]);
    let serial = 2.0 + (3.0 * 3600.0 + 4.0 * 60.0 + 5.678) / 86_400.0;
    check("[h]:mm:ss", &[(serial, "51:04:06")]);
    check("[mm]:ss", &[(serial, "3064:06")]);
    check("[ss]", &[(serial, "183846")]);
    check("[h]:mm:ss.000", &[(serial, "51:04:05.678")]);
    check("mm:ss.0", &[(serial, "04:05.7")]);
    check("h:mm:ss.00", &[(serial, "3:04:05.68")]);
    // Rounding carries into the next day.
    check(
        "yyyy-mm-dd h:mm:ss",
        &[(45_000.999_999_9, "2023-03-16 0:00:00")],
    );
}

#[test]
fn dates_excel_cannot_show_fall_back_to_general() {
    check("yyyy-mm-dd", &[(-1.0, "-1"), (3e6, "3000000")]);
    check("[h]:mm", &[(-0.5, "-0.5")]);
}

#[test]
fn the_1904_date_system() {
    let mut out = String::new();
    NumberFormat::parse("yyyy-mm-dd dddd").write_number_in(0.0, DateSystem::V1904, &mut out);
    assert_eq!(out, "1904-01-01 Friday");
}

#[test]
fn general_inside_sections() {
    check("General", &[(0.125, "0.125"), (-3.0, "-3")]);
    check("General\" kg\"", &[(12.5, "12.5 kg")]);
    check("General;(General)", &[(-12.5, "(12.5)")]);
    check("", &[(123_456_789_012.0, "1.23457E+11")]);
}

#[test]
fn builtin_ids() {
    let cases: &[(u32, f64, &str)] = &[
        (0, 1234.5, "1234.5"),
        (1, 1234.5, "1235"),
        (2, 1234.5, "1234.50"),
        (3, 1234.5, "1,235"),
        (4, 1234.5, "1,234.50"),
        (5, -1234.5, "($1,235)"),
        (7, 1234.5, "$1,234.50 "),
        (9, 0.125, "13%"),
        (10, 0.125, "12.50%"),
        (11, 1234.5, "1.23E+03"),
        (12, 1.25, "1 1/4"),
        (13, 1.25, "1  1/4 "),
        (14, 45_000.0, "3/15/2023"),
        (15, 45_000.0, "15-Mar-23"),
        (16, 45_000.0, "15-Mar"),
        (17, 45_000.0, "Mar-23"),
        (18, 0.75, "6:00 PM"),
        (19, 0.75, "6:00:00 PM"),
        (20, 0.75, "18:00"),
        (21, 0.75, "18:00:00"),
        (22, 45_000.75, "3/15/2023 18:00"),
        (37, -1234.0, "(1,234)"),
        (37, 1234.0, "1,234 "),
        (39, 1234.5, "1,234.50"),
        (44, 1234.5, " $ 1,234.50 "),
        (44, -1234.5, " $ (1,234.50)"),
        (44, 0.0, " $ -   "),
        (45, 0.5 + 65.0 / 86_400.0, "01:05"),
        (46, 1.5, "36:00:00"),
        (48, 12345.0, "12.3E+3"),
        (49, 12.0, "12"),
        (100, 12.0, "12"),
    ];
    for &(id, number, expected) in cases {
        let mut out = String::new();
        NumberFormat::builtin(id).write_number(number, &mut out);
        assert_eq!(
            out,
            expected,
            "{number} in built-in {id} ({:?})",
            builtin_code(id)
        );
    }
}

#[test]
fn hostile_codes_stay_bounded() {
    let zeros = "0".repeat(1_000_000);
    // Past the code length Excel accepts: General.
    assert_eq!(show(&zeros, 5.0), "5");
    let many = "0".repeat(1000);
    assert_eq!(show(&many, 5.0).len(), 1000);
    let decimals = format!("0.{}", "0".repeat(1000));
    assert_eq!(show(&decimals, 0.5).len(), 1002);
    assert_eq!(
        show("[hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh]", 1.0),
        "00000000000000000024"
    );
    assert_eq!(show("[h]", 1e300), "1E+300");
    assert_eq!(show("0", f64::MAX).len(), 309);
    assert_eq!(show("# ?/?", 1e300).len(), 305);
    assert_eq!(show("?/?", 1e300).len(), 303);
    for code in [
        "\"", "\\", "_", "*", "[", "[$", "[<", "[>=x]0", "0/", "/0", "E+", "0E+", ".", ",", "@@",
        ";;;;;;",
    ] {
        let _ = show(code, -1.5);
        let _ = show_text(code, "t");
    }
}

/// Random format codes from the characters that mean something (and some
/// that do not) never panic and stay within the bound.
#[test]
fn random_codes_do_not_panic() {
    let alphabet: &[&str] = &[
        "0",
        "#",
        "?",
        ".",
        ",",
        "%",
        "E+",
        "E-",
        "e",
        "/",
        "@",
        ";",
        "\"",
        "\\",
        "_",
        "*",
        "[",
        "]",
        "[h]",
        "[mm]",
        "[Red]",
        "[<=5]",
        "[$€-407]",
        "y",
        "m",
        "d",
        "h",
        "s",
        "AM/PM",
        "A/P",
        "General",
        " ",
        "-",
        "é",
        "年",
        "1",
        "6",
        "00",
        "ss.000",
        "B2",
        "g",
    ];
    let numbers = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        12_345.678,
        -1e-10,
        1e20,
        2_958_465.9,
        45_000.123,
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let mut code = String::new();
        let len = next() % 24;
        for _ in 0..len {
            code.push_str(alphabet[(next() % alphabet.len() as u64) as usize]);
        }
        crate::fuzzing::render_format_code(&code, &numbers);
    }
}

#[test]
fn locales_show_english_names_and_system_formats_as_en_us() {
    // 2024-03-01 13:45:30, a Friday.
    let serial = 45_352.0 + (13.0 * 3600.0 + 45.0 * 60.0 + 30.0) / 86_400.0;
    // A German locale id: English names, the same digits.
    check("[$-407]d. mmmm yyyy", &[(serial, "1. March 2024")]);
    check("[$-407]dddd", &[(serial, "Friday")]);
    check("[$-40C]ddd d mmm", &[(serial, "Fri 1 Mar")]);
    check("[$-407]#,##0.00", &[(1234.5, "1,234.50")]);
    // The system long date and time, as Excel's en-US formats, whatever the
    // code after them says.
    check(
        "[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy",
        &[(serial, "Friday, March 1, 2024")],
    );
    check("[$-F800]d/m/yy", &[(serial, "Friday, March 1, 2024")]);
    check(
        "[$-x-sysdate]dddd, mmmm dd, yyyy",
        &[(serial, "Friday, March 1, 2024")],
    );
    check("[$-F400]h:mm:ss\\ AM/PM", &[(serial, "1:45:30 PM")]);
    check("[$-f400]hh:mm", &[(serial, "1:45:30 PM")]);
    check("[$-x-systime]h:mm:ss AM/PM", &[(serial, "1:45:30 PM")]);
    // A number in a system date format below the epoch shows as General.
    check("[$-F800]dddd, mmmm dd, yyyy", &[(-1.0, "-1")]);
}
