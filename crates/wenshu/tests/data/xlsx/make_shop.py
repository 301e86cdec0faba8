"""Writes shop.xlsx, the fixture of tests/init_file.rs, by hand (no spreadsheet library): two sheets, shared
strings, a date-formatted day column, inline strings; prints the 2025 amount per city the test checks."""
import datetime
import zipfile

CITIES = ["Berlin", "Paris", "Rome"]
ZH_CITIES = ["北京", "上海", "深圳"]
EPOCH = datetime.date(1899, 12, 30)


def rows():
    for i in range(60):
        day = datetime.date(2024 if i % 4 == 0 else 2025, i % 12 + 1, i % 28 + 1)
        yield day, i % 3, 10 + i * 7 % 90 + 0.5


strings = ["Order Date", "City", "Amount"] + CITIES + ["下单日期", "城市", "金额"] + ZH_CITIES


def s(text):
    return f'<c t="s"><v>{strings.index(text)}</v></c>'


def sheet(header, cities):
    out = ['<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>']
    out.append('<row r="1">' + "".join(s(h) for h in header) + "</row>")
    for n, (day, city, amount) in enumerate(rows(), start=2):
        serial = (day - EPOCH).days
        out.append(
            f'<row r="{n}"><c r="A{n}" s="1"><v>{serial}</v></c><c r="B{n}" t="s"><v>{strings.index(cities[city])}</v></c>'
            f'<c r="C{n}"><v>{amount}</v></c></row>'
        )
    out.append("</sheetData></worksheet>")
    return "".join(out)


files = {
    "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Orders" sheetId="1" r:id="rId1"/><sheet name="销售" sheetId="2" r:id="rId2"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="worksheet" Target="worksheets/sheet2.xml"/></Relationships>',
    "xl/styles.xml": '<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>',
    "xl/sharedStrings.xml": '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    + "".join(f"<si><t>{t}</t></si>" for t in strings)
    + "</sst>",
    "xl/worksheets/sheet1.xml": sheet(["Order Date", "City", "Amount"], CITIES),
    "xl/worksheets/sheet2.xml": sheet(["下单日期", "城市", "金额"], ZH_CITIES),
}
with zipfile.ZipFile("shop.xlsx", "w", zipfile.ZIP_DEFLATED) as z:
    for name, text in files.items():
        z.writestr(name, text)

totals = {}
for day, city, amount in rows():
    if day.year == 2025:
        totals[CITIES[city]] = totals.get(CITIES[city], 0) + amount
print(totals)
