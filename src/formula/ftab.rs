//! Excel's built-in function numbers (the `Ftab` of MS-XLS 2.5.198.17,
//! which MS-XLSB extends to 484): each function's name and, for the
//! functions Excel writes with PtgFunc, their fixed argument count.
//!
//! A facts table written from the specification's list: index, name,
//! argument count (`VAR` where the count varies and PtgFuncVar carries
//! it). An empty name is an index the specification leaves unused.

/// The argument count of a function that takes a varying number.
pub(crate) const VAR: u8 = u8::MAX;

/// A built-in function: its name and its fixed argument count (or `VAR`).
pub(crate) fn function(index: u16) -> Option<(&'static str, u8)> {
    FUNCTIONS
        .get(usize::from(index))
        .copied()
        .filter(|(name, _)| !name.is_empty())
}

#[rustfmt::skip]
static FUNCTIONS: [(&str, u8); 485] = [
    ("COUNT", VAR), ("IF", VAR), ("ISNA", 1), ("ISERROR", 1), ("SUM", VAR),
    ("AVERAGE", VAR), ("MIN", VAR), ("MAX", VAR), ("ROW", VAR), ("COLUMN", VAR),
    // 10
    ("NA", 0), ("NPV", VAR), ("STDEV", VAR), ("DOLLAR", VAR), ("FIXED", VAR),
    ("SIN", 1), ("COS", 1), ("TAN", 1), ("ATAN", 1), ("PI", 0),
    // 20
    ("SQRT", 1), ("EXP", 1), ("LN", 1), ("LOG10", 1), ("ABS", 1),
    ("INT", 1), ("SIGN", 1), ("ROUND", 2), ("LOOKUP", VAR), ("INDEX", VAR),
    // 30
    ("REPT", 2), ("MID", 3), ("LEN", 1), ("VALUE", 1), ("TRUE", 0),
    ("FALSE", 0), ("AND", VAR), ("OR", VAR), ("NOT", 1), ("MOD", 2),
    // 40
    ("DCOUNT", 3), ("DSUM", 3), ("DAVERAGE", 3), ("DMIN", 3), ("DMAX", 3),
    ("DSTDEV", 3), ("VAR", VAR), ("DVAR", 3), ("TEXT", 2), ("LINEST", VAR),
    // 50
    ("TREND", VAR), ("LOGEST", VAR), ("GROWTH", VAR), ("GOTO", 1), ("HALT", VAR),
    ("RETURN", VAR), ("PV", VAR), ("FV", VAR), ("NPER", VAR), ("PMT", VAR),
    // 60
    ("RATE", VAR), ("MIRR", 3), ("IRR", VAR), ("RAND", 0), ("MATCH", VAR),
    ("DATE", 3), ("TIME", 3), ("DAY", 1), ("MONTH", 1), ("YEAR", 1),
    // 70
    ("WEEKDAY", VAR), ("HOUR", 1), ("MINUTE", 1), ("SECOND", 1), ("NOW", 0),
    ("AREAS", 1), ("ROWS", 1), ("COLUMNS", 1), ("OFFSET", VAR), ("ABSREF", 2),
    // 80
    ("RELREF", 2), ("ARGUMENT", VAR), ("SEARCH", VAR), ("TRANSPOSE", 1), ("ERROR", VAR),
    ("STEP", 0), ("TYPE", 1), ("ECHO", VAR), ("SET.NAME", VAR), ("CALLER", 0),
    // 90
    ("DEREF", 1), ("WINDOWS", VAR), ("SERIES", VAR), ("DOCUMENTS", VAR), ("ACTIVE.CELL", 0),
    ("SELECTION", 0), ("RESULT", VAR), ("ATAN2", 2), ("ASIN", 1), ("ACOS", 1),
    // 100
    ("CHOOSE", VAR), ("HLOOKUP", VAR), ("VLOOKUP", VAR), ("LINKS", VAR), ("INPUT", VAR),
    ("ISREF", 1), ("GET.FORMULA", 1), ("GET.NAME", VAR), ("SET.VALUE", 2), ("LOG", VAR),
    // 110
    ("EXEC", VAR), ("CHAR", 1), ("LOWER", 1), ("UPPER", 1), ("PROPER", 1),
    ("LEFT", VAR), ("RIGHT", VAR), ("EXACT", 2), ("TRIM", 1), ("REPLACE", 4),
    // 120
    ("SUBSTITUTE", VAR), ("CODE", 1), ("NAMES", VAR), ("DIRECTORY", VAR), ("FIND", VAR),
    ("CELL", VAR), ("ISERR", 1), ("ISTEXT", 1), ("ISNUMBER", 1), ("ISBLANK", 1),
    // 130
    ("T", 1), ("N", 1), ("FOPEN", VAR), ("FCLOSE", 1), ("FSIZE", 1),
    ("FREADLN", 1), ("FREAD", 2), ("FWRITELN", 2), ("FWRITE", 2), ("FPOS", VAR),
    // 140
    ("DATEVALUE", 1), ("TIMEVALUE", 1), ("SLN", 3), ("SYD", 4), ("DDB", VAR),
    ("GET.DEF", VAR), ("REFTEXT", VAR), ("TEXTREF", VAR), ("INDIRECT", VAR), ("REGISTER", VAR),
    // 150
    ("CALL", VAR), ("ADD.BAR", VAR), ("ADD.MENU", VAR), ("ADD.COMMAND", VAR), ("ENABLE.COMMAND", VAR),
    ("CHECK.COMMAND", VAR), ("RENAME.COMMAND", VAR), ("SHOW.BAR", VAR), ("DELETE.MENU", VAR), ("DELETE.COMMAND", VAR),
    // 160
    ("GET.CHART.ITEM", VAR), ("DIALOG.BOX", 1), ("CLEAN", 1), ("MDETERM", 1), ("MINVERSE", 1),
    ("MMULT", 2), ("FILES", VAR), ("IPMT", VAR), ("PPMT", VAR), ("COUNTA", VAR),
    // 170
    ("CANCEL.KEY", VAR), ("FOR", VAR), ("WHILE", 1), ("BREAK", 0), ("NEXT", 0),
    ("INITIATE", 2), ("REQUEST", 2), ("POKE", 3), ("EXECUTE", 2), ("TERMINATE", 1),
    // 180
    ("RESTART", VAR), ("HELP", VAR), ("GET.BAR", VAR), ("PRODUCT", VAR), ("FACT", 1),
    ("GET.CELL", VAR), ("GET.WORKSPACE", 1), ("GET.WINDOW", VAR), ("GET.DOCUMENT", VAR), ("DPRODUCT", 3),
    // 190
    ("ISNONTEXT", 1), ("GET.NOTE", VAR), ("NOTE", VAR), ("STDEVP", VAR), ("VARP", VAR),
    ("DSTDEVP", 3), ("DVARP", 3), ("TRUNC", VAR), ("ISLOGICAL", 1), ("DCOUNTA", 3),
    // 200
    ("DELETE.BAR", 1), ("UNREGISTER", 1), ("", 0), ("", 0), ("USDOLLAR", VAR),
    ("FINDB", VAR), ("SEARCHB", VAR), ("REPLACEB", 4), ("LEFTB", VAR), ("RIGHTB", VAR),
    // 210
    ("MIDB", 3), ("LENB", 1), ("ROUNDUP", 2), ("ROUNDDOWN", 2), ("ASC", 1),
    ("DBCS", 1), ("RANK", VAR), ("", 0), ("", 0), ("ADDRESS", VAR),
    // 220
    ("DAYS360", VAR), ("TODAY", 0), ("VDB", VAR), ("ELSE", 0), ("ELSE.IF", 1),
    ("END.IF", 0), ("FOR.CELL", VAR), ("MEDIAN", VAR), ("SUMPRODUCT", VAR), ("SINH", 1),
    // 230
    ("COSH", 1), ("TANH", 1), ("ASINH", 1), ("ACOSH", 1), ("ATANH", 1),
    ("DGET", 3), ("CREATE.OBJECT", VAR), ("VOLATILE", VAR), ("LAST.ERROR", 0), ("CUSTOM.UNDO", VAR),
    // 240
    ("CUSTOM.REPEAT", VAR), ("FORMULA.CONVERT", VAR), ("GET.LINK.INFO", VAR), ("TEXT.BOX", VAR), ("INFO", 1),
    ("GROUP", 0), ("GET.OBJECT", VAR), ("DB", VAR), ("PAUSE", VAR), ("", 0),
    // 250
    ("", 0), ("RESUME", VAR), ("FREQUENCY", 2), ("ADD.TOOLBAR", VAR), ("DELETE.TOOLBAR", 1),
    ("", 0), ("RESET.TOOLBAR", 1), ("EVALUATE", 1), ("GET.TOOLBAR", VAR), ("GET.TOOL", VAR),
    // 260
    ("SPELLING.CHECK", VAR), ("ERROR.TYPE", 1), ("APP.TITLE", VAR), ("WINDOW.TITLE", VAR), ("SAVE.TOOLBAR", VAR),
    ("ENABLE.TOOL", 3), ("PRESS.TOOL", 3), ("REGISTER.ID", VAR), ("GET.WORKBOOK", VAR), ("AVEDEV", VAR),
    // 270
    ("BETADIST", VAR), ("GAMMALN", 1), ("BETAINV", VAR), ("BINOMDIST", 4), ("CHIDIST", 2),
    ("CHIINV", 2), ("COMBIN", 2), ("CONFIDENCE", 3), ("CRITBINOM", 3), ("EVEN", 1),
    // 280
    ("EXPONDIST", 3), ("FDIST", 3), ("FINV", 3), ("FISHER", 1), ("FISHERINV", 1),
    ("FLOOR", 2), ("GAMMADIST", 4), ("GAMMAINV", 3), ("CEILING", 2), ("HYPGEOMDIST", 4),
    // 290
    ("LOGNORMDIST", 3), ("LOGINV", 3), ("NEGBINOMDIST", 3), ("NORMDIST", 4), ("NORMSDIST", 1),
    ("NORMINV", 3), ("NORMSINV", 1), ("STANDARDIZE", 3), ("ODD", 1), ("PERMUT", 2),
    // 300
    ("POISSON", 3), ("TDIST", 3), ("WEIBULL", 4), ("SUMXMY2", 2), ("SUMX2MY2", 2),
    ("SUMX2PY2", 2), ("CHITEST", 2), ("CORREL", 2), ("COVAR", 2), ("FORECAST", 3),
    // 310
    ("FTEST", 2), ("INTERCEPT", 2), ("PEARSON", 2), ("RSQ", 2), ("STEYX", 2),
    ("SLOPE", 2), ("TTEST", 4), ("PROB", VAR), ("DEVSQ", VAR), ("GEOMEAN", VAR),
    // 320
    ("HARMEAN", VAR), ("SUMSQ", VAR), ("KURT", VAR), ("SKEW", VAR), ("ZTEST", VAR),
    ("LARGE", 2), ("SMALL", 2), ("QUARTILE", 2), ("PERCENTILE", 2), ("PERCENTRANK", VAR),
    // 330
    ("MODE", VAR), ("TRIMMEAN", 2), ("TINV", 2), ("", 0), ("MOVIE.COMMAND", VAR),
    ("GET.MOVIE", VAR), ("CONCATENATE", VAR), ("POWER", 2), ("PIVOT.ADD.DATA", VAR), ("GET.PIVOT.TABLE", VAR),
    // 340
    ("GET.PIVOT.FIELD", VAR), ("GET.PIVOT.ITEM", VAR), ("RADIANS", 1), ("DEGREES", 1), ("SUBTOTAL", VAR),
    ("SUMIF", VAR), ("COUNTIF", 2), ("COUNTBLANK", 1), ("SCENARIO.GET", VAR), ("OPTIONS.LISTS.GET", 1),
    // 350
    ("ISPMT", 4), ("DATEDIF", 3), ("DATESTRING", 1), ("NUMBERSTRING", 2), ("ROMAN", VAR),
    ("OPEN.DIALOG", VAR), ("SAVE.DIALOG", VAR), ("VIEW.GET", VAR), ("GETPIVOTDATA", VAR), ("HYPERLINK", VAR),
    // 360
    ("PHONETIC", 1), ("AVERAGEA", VAR), ("MAXA", VAR), ("MINA", VAR), ("STDEVPA", VAR),
    ("VARPA", VAR), ("STDEVA", VAR), ("VARA", VAR), ("BAHTTEXT", 1), ("THAIDAYOFWEEK", 1),
    // 370
    ("THAIDIGIT", 1), ("THAIMONTHOFYEAR", 1), ("THAINUMSOUND", 1), ("THAINUMSTRING", 1), ("THAISTRINGLENGTH", 1),
    ("ISTHAIDIGIT", 1), ("ROUNDBAHTDOWN", 1), ("ROUNDBAHTUP", 1), ("THAIYEAR", 1), ("RTD", VAR),
    // 380
    ("CUBEVALUE", VAR), ("CUBEMEMBER", VAR), ("CUBEMEMBERPROPERTY", VAR), ("CUBERANKEDMEMBER", VAR), ("HEX2BIN", VAR),
    ("HEX2DEC", 1), ("HEX2OCT", VAR), ("DEC2BIN", VAR), ("DEC2HEX", VAR), ("DEC2OCT", VAR),
    // 390
    ("OCT2BIN", VAR), ("OCT2HEX", VAR), ("OCT2DEC", 1), ("BIN2DEC", 1), ("BIN2OCT", VAR),
    ("BIN2HEX", VAR), ("IMSUB", 2), ("IMDIV", 2), ("IMPOWER", 2), ("IMABS", 1),
    // 400
    ("IMSQRT", 1), ("IMLN", 1), ("IMLOG2", 1), ("IMLOG10", 1), ("IMSIN", 1),
    ("IMCOS", 1), ("IMEXP", 1), ("IMARGUMENT", 1), ("IMCONJUGATE", 1), ("IMAGINARY", 1),
    // 410
    ("IMREAL", 1), ("COMPLEX", VAR), ("IMSUM", VAR), ("IMPRODUCT", VAR), ("SERIESSUM", 4),
    ("FACTDOUBLE", 1), ("SQRTPI", 1), ("QUOTIENT", 2), ("DELTA", VAR), ("GESTEP", VAR),
    // 420
    ("ISEVEN", 1), ("ISODD", 1), ("MROUND", 2), ("ERF", VAR), ("ERFC", 1),
    ("BESSELJ", 2), ("BESSELK", 2), ("BESSELY", 2), ("BESSELI", 2), ("XIRR", VAR),
    // 430
    ("XNPV", 3), ("PRICEMAT", VAR), ("YIELDMAT", VAR), ("INTRATE", VAR), ("RECEIVED", VAR),
    ("DISC", VAR), ("PRICEDISC", VAR), ("YIELDDISC", VAR), ("TBILLEQ", 3), ("TBILLPRICE", 3),
    // 440
    ("TBILLYIELD", 3), ("PRICE", VAR), ("YIELD", VAR), ("DOLLARDE", 2), ("DOLLARFR", 2),
    ("NOMINAL", 2), ("EFFECT", 2), ("CUMPRINC", 6), ("CUMIPMT", 6), ("EDATE", 2),
    // 450
    ("EOMONTH", 2), ("YEARFRAC", VAR), ("COUPDAYBS", VAR), ("COUPDAYS", VAR), ("COUPDAYSNC", VAR),
    ("COUPNCD", VAR), ("COUPNUM", VAR), ("COUPPCD", VAR), ("DURATION", VAR), ("MDURATION", VAR),
    // 460
    ("ODDLPRICE", VAR), ("ODDLYIELD", VAR), ("ODDFPRICE", VAR), ("ODDFYIELD", VAR), ("RANDBETWEEN", 2),
    ("WEEKNUM", VAR), ("AMORDEGRC", VAR), ("AMORLINC", VAR), ("CONVERT", 3), ("ACCRINT", VAR),
    // 470
    ("ACCRINTM", VAR), ("WORKDAY", VAR), ("NETWORKDAYS", VAR), ("GCD", VAR), ("MULTINOMIAL", VAR),
    ("LCM", VAR), ("FVSCHEDULE", 2), ("CUBEKPIMEMBER", VAR), ("CUBESET", VAR), ("CUBESETCOUNT", 1),
    // 480
    ("IFERROR", 2), ("COUNTIFS", VAR), ("SUMIFS", VAR), ("AVERAGEIF", VAR), ("AVERAGEIFS", VAR),
];
