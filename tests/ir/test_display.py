"""Corpus text shown in HTML tables is escaped: a document is data, never markup."""

import html.parser

from mmir_lib.ir import Analyzer, InvertedIndex, bm25_search
from mmir_lib.ir.display import ranking_table, snippet

EVIL = 'Beware the <script>alert("ides")</script> of March & <b onclick="x()">Caesar</b>'


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def _tags(markup: str) -> list[str]:
    parser = _Tags()
    parser.feed(markup)
    return parser.tags


def test_snippet_escapes_and_marks():
    out = snippet(EVIL, {"march"}, Analyzer())
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<mark>March</mark>" in out and "&amp;" in out
    assert set(_tags(out)) == {"mark"}


def test_ranking_table_renders_a_script_as_text():
    analyzer = Analyzer()
    texts = [EVIL, "a plain speech about march"]
    index = InvertedIndex.from_texts(texts, analyzer)
    doc_ids, scores = bm25_search(index, "march caesar")
    rows = [{"speaker": '<img src=x onerror="y()">', "text": texts[d]} for d in doc_ids]
    table = ranking_table(rows, scores, index.analyze("march caesar"), analyzer, ["speaker"],
                          caption="<i>top</i>")
    # Only the table's own tags survive; every tag written in the corpus is shown as text.
    assert set(_tags(table)) <= {"table", "caption", "thead", "tbody", "tr", "th", "td", "mark"}
    assert "&lt;script&gt;alert(&quot;ides&quot;)&lt;/script&gt;" in table
    assert "&lt;img src=x onerror=&quot;y()&quot;&gt;" in table
    assert "&lt;i&gt;top&lt;/i&gt;" in table
