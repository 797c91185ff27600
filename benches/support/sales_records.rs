//! The "Sales Records" workbook of the peers bench (`benches/peers.rs`):
//! the shape of the public sample file of that name, generated here
//! deterministically (a fixed linear congruential sequence), as `.xlsx`
//! (rust_xlsxwriter, strings shared) and `.xlsb` (`xlsb_writer.rs`,
//! strings shared, numbers as RK where they fit, as Excel writes them).
//!
//! A header row, then [`ROWS`] rows of 14 columns: Region, Country, Item
//! Type, Sales Channel and Order Priority as text; Order Date and Ship
//! Date as dates (`m/d/yyyy`); Order ID and Units Sold as whole numbers;
//! Unit Price, Unit Cost, Total Revenue, Total Cost and Total Profit as
//! money (two decimals).

use std::path::Path;

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, XlsxError};

use crate::xlsb_writer::{STYLE_DATE, XlsbCell, XlsbWriter};

/// Data rows, after the header (with it, the 65,536 rows of an `.xls`).
pub const ROWS: u32 = 65_535;

pub const HEADER: [&str; 14] = [
    "Region",
    "Country",
    "Item Type",
    "Sales Channel",
    "Order Priority",
    "Order Date",
    "Order ID",
    "Ship Date",
    "Units Sold",
    "Unit Price",
    "Unit Cost",
    "Total Revenue",
    "Total Cost",
    "Total Profit",
];

/// Countries by region.
const REGIONS: [(&str, &[&str]); 7] = [
    (
        "Europe",
        &[
            "Albania",
            "Austria",
            "Belgium",
            "Croatia",
            "Denmark",
            "Estonia",
            "Finland",
            "France",
            "Germany",
            "Greece",
            "Iceland",
            "Ireland",
            "Italy",
            "Norway",
            "Poland",
            "Portugal",
            "Spain",
            "Sweden",
            "Switzerland",
            "United Kingdom",
        ],
    ),
    (
        "Sub-Saharan Africa",
        &[
            "Angola",
            "Benin",
            "Botswana",
            "Cameroon",
            "Ghana",
            "Kenya",
            "Mali",
            "Namibia",
            "Nigeria",
            "Rwanda",
            "Senegal",
            "South Africa",
            "Tanzania",
            "Uganda",
            "Zambia",
        ],
    ),
    (
        "Asia",
        &[
            "Bangladesh",
            "Cambodia",
            "China",
            "India",
            "Indonesia",
            "Japan",
            "Malaysia",
            "Mongolia",
            "Nepal",
            "Philippines",
            "Singapore",
            "South Korea",
            "Thailand",
            "Vietnam",
        ],
    ),
    (
        "Middle East and North Africa",
        &[
            "Algeria",
            "Egypt",
            "Iran",
            "Iraq",
            "Jordan",
            "Kuwait",
            "Lebanon",
            "Libya",
            "Morocco",
            "Oman",
            "Qatar",
            "Saudi Arabia",
            "Tunisia",
            "Turkey",
        ],
    ),
    (
        "Central America and the Caribbean",
        &[
            "Belize",
            "Costa Rica",
            "Cuba",
            "Dominica",
            "El Salvador",
            "Guatemala",
            "Haiti",
            "Honduras",
            "Jamaica",
            "Nicaragua",
            "Panama",
        ],
    ),
    (
        "Australia and Oceania",
        &[
            "Australia",
            "Fiji",
            "Kiribati",
            "New Zealand",
            "Palau",
            "Samoa",
            "Tonga",
            "Tuvalu",
            "Vanuatu",
        ],
    ),
    (
        "North America",
        &["Canada", "Greenland", "Mexico", "United States of America"],
    ),
];

/// Item types with their unit price and unit cost.
const ITEMS: [(&str, f64, f64); 12] = [
    ("Baby Food", 255.28, 159.42),
    ("Beverages", 47.45, 31.79),
    ("Cereal", 205.70, 117.11),
    ("Clothes", 109.28, 35.84),
    ("Cosmetics", 437.20, 263.33),
    ("Fruits", 9.33, 6.92),
    ("Household", 668.27, 502.54),
    ("Meat", 421.89, 364.69),
    ("Office Supplies", 651.21, 524.96),
    ("Personal Care", 81.73, 56.67),
    ("Snacks", 152.58, 97.44),
    ("Vegetables", 154.06, 90.93),
];

const PRIORITIES: [&str; 4] = ["H", "M", "L", "C"];

/// One data row's values.
pub struct Sale {
    pub region: &'static str,
    pub country: &'static str,
    pub item: &'static str,
    pub channel: &'static str,
    pub priority: &'static str,
    /// Excel serial days (1900 system).
    pub order_date: f64,
    pub order_id: f64,
    pub ship_date: f64,
    pub units: f64,
    pub unit_price: f64,
    pub unit_cost: f64,
    pub revenue: f64,
    pub cost: f64,
    pub profit: f64,
}

/// The rows, the same on every call.
pub fn sales() -> impl Iterator<Item = Sale> {
    let mut state: u64 = 0x5eed_5a1e_5000_0001;
    let mut next = move |bound: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % bound
    };
    let cents = |value: f64| (value * 100.0).round() / 100.0;
    (0..ROWS).map(move |_| {
        let (region, countries) = REGIONS[next(REGIONS.len() as u64) as usize];
        let country = countries[next(countries.len() as u64) as usize];
        let (item, unit_price, unit_cost) = ITEMS[next(ITEMS.len() as u64) as usize];
        // 2010-01-01 (40179) to 2017-07-28 (42944).
        let order_date = 40_179.0 + next(2_766) as f64;
        let units = 1.0 + next(10_000) as f64;
        let revenue = cents(units * unit_price);
        let cost = cents(units * unit_cost);
        Sale {
            region,
            country,
            item,
            channel: if next(2) == 0 { "Online" } else { "Offline" },
            priority: PRIORITIES[next(4) as usize],
            order_date,
            order_id: 100_000_000.0 + next(900_000_000) as f64,
            ship_date: order_date + next(51) as f64,
            units,
            unit_price,
            unit_cost,
            revenue,
            cost,
            profit: cents(revenue - cost),
        }
    })
}

/// Writes the workbook as `.xlsx`.
pub fn write_xlsx(path: &Path) -> Result<(), XlsxError> {
    let mut workbook = Workbook::new();
    let date = Format::new().set_num_format("m/d/yyyy");
    let sheet = workbook.add_worksheet();
    sheet.set_name("Sales Records")?;
    for (column, name) in HEADER.iter().enumerate() {
        sheet.write_string(0, column as u16, *name)?;
    }
    for (index, sale) in sales().enumerate() {
        let row = index as u32 + 1;
        sheet.write_string(row, 0, sale.region)?;
        sheet.write_string(row, 1, sale.country)?;
        sheet.write_string(row, 2, sale.item)?;
        sheet.write_string(row, 3, sale.channel)?;
        sheet.write_string(row, 4, sale.priority)?;
        let order = ExcelDateTime::from_serial_datetime(sale.order_date)?;
        sheet.write_datetime_with_format(row, 5, order, &date)?;
        sheet.write_number(row, 6, sale.order_id)?;
        let ship = ExcelDateTime::from_serial_datetime(sale.ship_date)?;
        sheet.write_datetime_with_format(row, 7, ship, &date)?;
        for (column, value) in [
            sale.units,
            sale.unit_price,
            sale.unit_cost,
            sale.revenue,
            sale.cost,
            sale.profit,
        ]
        .into_iter()
        .enumerate()
        {
            sheet.write_number(row, 8 + column as u16, value)?;
        }
    }
    workbook.save(path)
}

/// Writes the workbook as `.xlsb`.
pub fn write_xlsb(path: &Path) -> std::io::Result<()> {
    let mut writer = XlsbWriter::new();
    writer.add_sheet("Sales Records", 0);
    writer.row(0);
    for (column, name) in HEADER.iter().enumerate() {
        writer.cell(column as u32, 0, XlsbCell::Text(name));
    }
    for (index, sale) in sales().enumerate() {
        writer.row(index as u32 + 1);
        for (column, text) in [
            sale.region,
            sale.country,
            sale.item,
            sale.channel,
            sale.priority,
        ]
        .into_iter()
        .enumerate()
        {
            writer.cell(column as u32, 0, XlsbCell::Text(text));
        }
        writer.cell(5, STYLE_DATE, XlsbCell::Number(sale.order_date));
        writer.cell(6, 0, XlsbCell::Number(sale.order_id));
        writer.cell(7, STYLE_DATE, XlsbCell::Number(sale.ship_date));
        for (column, value) in [
            sale.units,
            sale.unit_price,
            sale.unit_cost,
            sale.revenue,
            sale.cost,
            sale.profit,
        ]
        .into_iter()
        .enumerate()
        {
            writer.cell(8 + column as u32, 0, XlsbCell::Number(value));
        }
    }
    writer.save(path)
}
