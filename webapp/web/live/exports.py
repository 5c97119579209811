"""A live lesson's report to keep: a CSV for programs (the columns of
:data:`COLUMNS`, named in English whatever the page's language, with a
UTF-8 byte order mark so spreadsheets read its letters right) and an
``.xlsx`` spreadsheet for people (headers in the page's language, numbers
as numbers, one sheet of proposals and one of students)."""

from __future__ import annotations

import csv
import io

from flask import Response
from flask_babel import gettext, lazy_gettext, lazy_pgettext
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from ...words import student_label
from . import screens, service

# The report's rows, column by column, each with its header in a spreadsheet.
COLUMNS = {
    "game": lazy_gettext("Game"),
    "step": lazy_pgettext("table column", "Guess"),
    "student": lazy_gettext("Student number"),
    "nickname": lazy_gettext("Name"),
    "removed": lazy_gettext("Removed"),
    "guess": lazy_gettext("Proposal"),
    "expected": lazy_gettext("E of the proposal"),
    "expected_bound": lazy_gettext("E is"),
    "strategy_guess": lazy_gettext("The strategy's guess"),
    "strategy_expected": lazy_gettext("E of the strategy's guess"),
    "strategy_expected_bound": lazy_gettext("That E is"),
    "best_expected": lazy_gettext("Best possible (V)"),
    "best_expected_bound": lazy_gettext("V is"),
    "difference": lazy_gettext("Difference"),
    "difference_bound": lazy_gettext("The difference is"),
    "points": lazy_gettext("Points"),
}
BOUNDS = {
    "exact": lazy_gettext("exact"),
    "at_least": lazy_gettext("at least"),
    "at_most": lazy_gettext("at most"),
}
BOM = "\ufeff"


def cell(text: str) -> str:
    """Text a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    return cell(str(value))


def report_csv(rows: list[dict]) -> str:
    """One row per proposal: the columns of :data:`COLUMNS` (E left empty
    while it is worked out; bounds as exact, at_least or at_most)."""
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(csv_value(row[key]) for key in COLUMNS)
    return out.getvalue()


def sheet_value(key: str, value):
    if value is None:
        return None
    if key.endswith("_bound"):
        return str(BOUNDS.get(value, value))
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, str):
        return cell(value)
    return value


def fill(sheet, headers: list[str], rows: list[list], number_format: dict[int, str]) -> None:
    sheet.append(headers)
    for c in sheet[1]:
        c.font = Font(bold=True)
    for row in rows:
        sheet.append(row)
    for index, header in enumerate(headers, start=1):
        letter = get_column_letter(index)
        sheet.column_dimensions[letter].width = max(10, min(40, len(header) + 2))
        if index in number_format:
            for (c,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                c.number_format = number_format[index]
    sheet.freeze_panes = "A2"


def report_xlsx(rows: list[dict], people: list[dict]) -> bytes:
    """The report as a workbook: the proposals, and the students (``people``:
    dicts of name, number, removed, proposals, as_good, points)."""
    book = Workbook()
    proposals = book.active
    proposals.title = gettext("Proposals")[:31]
    keys = list(COLUMNS)
    decimals = {i + 1 for i, key in enumerate(keys) if key in ("expected", "strategy_expected", "best_expected")}
    formats = {i: "0.000" for i in decimals}
    formats[keys.index("difference") + 1] = "+0.00;-0.00;0.00"
    fill(
        proposals,
        [str(COLUMNS[key]) for key in keys],
        [[sheet_value(key, row[key]) for key in keys] for row in rows],
        formats,
    )
    students = book.create_sheet(gettext("Students")[:31])
    fill(
        students,
        [
            str(COLUMNS["student"]),
            str(COLUMNS["nickname"]),
            str(COLUMNS["removed"]),
            gettext("Proposals"),
            gettext("As good as the strategy's"),
            str(COLUMNS["points"]),
        ],
        [
            [
                p["id"],
                cell(p["nickname"]),
                sheet_value("removed", p["removed"]),
                p["proposals"],
                p["as_good"],
                p["points"],
            ]
            for p in people
        ],
        {},
    )
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def report_people(session: service.LiveSession, report: dict) -> list[dict]:
    return [
        {
            "id": p["student"].seat,
            "nickname": student_label(p["student"], session.names != "hidden"),
            "removed": p["student"].removed,
            "proposals": p["proposals"],
            "as_good": p["as_good"],
            "points": p["points"],
        }
        for p in report["people"]
    ]


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def download(session: service.LiveSession, report: dict, kind: str) -> Response:
    """The report as a CSV or a spreadsheet file."""
    rows = screens.report_rows(report, lambda s: student_label(s, session.names != "hidden"))
    if kind == "xlsx":
        response = Response(report_xlsx(rows, report_people(session, report)), mimetype=XLSX)
    else:
        response = Response(report_csv(rows), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="live-{session.code}.{kind}"'
    return response
