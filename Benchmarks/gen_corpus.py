#!/usr/bin/env python3
"""Seeded news corpus for the newsgen benchmark: the same N stories x 3 languages as
a newsgen site and as a multilingual Hugo site.

    python3 Benchmarks/gen_corpus.py --n 1000 --out /tmp/newsgen-bench/corpus-1000

writes <out>/newsgen/ (newsgen.yml, content/<category>/<slug>.md, a copy of the
repository's templates/) and <out>/hugo/ (config.toml, layouts/, i18n/,
content/<lang>/...). Story k depends only on (seed, k), so the 1,000-story corpus is
the first 1,000 stories of the 10,000-story one, and two runs write identical bytes.
Story 0 is the newest; dates step back ~37 minutes per story from shortly before
NOW (NOW_EPOCH), which the harness passes to newsgen as SOURCE_DATE_EPOCH.

Standard library only. run.py imports this module for its edits (one body changed,
one story added, breaking stories for publish).
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil

# The fixed "now" of every benchmark build (2026-11-29 12:00:00 UTC).
NOW = datetime.datetime(2026, 11, 29, 12, 0, 0, tzinfo=datetime.timezone.utc)
NOW_EPOCH = int(NOW.timestamp())
SPACING_MINUTES = 37
BREAKING_SHARE = 0.08
SEED = "newsgen-bench-v1"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# language key -> (newsgen code, Hugo language key, display name, name for hub properties)
LANGS = ["en", "fr", "zh"]
CODE = {"en": "en", "fr": "fr", "zh": "zh-Hans"}
HUGO_KEY = {"en": "en", "fr": "fr", "zh": "zh-hans"}
HUB_NAME = {"en": "English", "fr": "French", "zh": "Mandarin"}
SITE_TITLE = {"en": "Example News", "fr": "Les Nouvelles", "zh": "新闻网"}
SITE_DESCRIPTION = {
    "en": "Synthetic benchmark news in three languages.",
    "fr": "Actualité synthétique pour le banc d'essai, en trois langues.",
    "zh": "用于性能测试的三语合成新闻。",
}
CATEGORIES = ["World", "Politics", "Business", "Technology", "Science", "Sports"]
CATEGORY_TITLE = {
    "en": dict(zip(CATEGORIES, CATEGORIES)),
    "fr": dict(zip(CATEGORIES, ["Monde", "Politique", "Économie", "Technologie", "Sciences", "Sport"])),
    "zh": dict(zip(CATEGORIES, ["国际", "政治", "财经", "科技", "科学", "体育"])),
}
UI = {  # strings the Hugo theme needs (newsgen's theme has its own strings.yml)
    "en": {"breaking": "Breaking", "latest": "Latest news", "published": "Published", "by": "By",
           "newer": "Newer", "older": "Older"},
    "fr": {"breaking": "Alerte", "latest": "Dernières nouvelles", "published": "Publié le", "by": "Par",
           "newer": "Plus récents", "older": "Plus anciens"},
    "zh": {"breaking": "突发", "latest": "最新消息", "published": "发布于", "by": "作者", "newer": "较新",
           "older": "较早"},
}

# ------------------------------------------------------------------ vocabulary
# Each language has the same number of entries in the lists that make titles, so one
# set of picks gives matching titles in the three languages.
VOCAB = {
    "en": {
        "actor": ["The finance ministry", "The city council", "The port authority", "A panel of economists",
                  "The statistics office", "The hospital board", "The rail regulator", "The coastal council",
                  "The energy agency", "The football league", "The farmers' union", "The European Commission",
                  "The opposition", "A university team", "The weather service", "The airline association"],
        "act": ["signs off on", "pushes back against", "publishes details of", "votes to extend",
                "raises doubts over", "postpones talks on", "orders a review of", "agrees to fund",
                "calls for an inquiry into", "scales back", "doubles spending on", "defends"],
        "topic": ["the rail upgrade", "water rationing", "the pension overhaul", "offshore wind permits",
                  "the ceasefire plan", "grain exports", "the stadium renovation", "drug prices",
                  "the housing programme", "rural broadband", "fishing quotas", "the flood barrier",
                  "battery recycling", "a tax on jet fuel"],
        "place": ["in Lisbon", "in Nairobi", "in Marseille", "in Chengdu", "in Toronto", "in the north",
                  "along the coast", "near the border", "in Strasbourg", "in Hong Kong", "in Montreal",
                  "in Warsaw"],
        "city": ["LISBON", "NAIROBI", "MARSEILLE", "CHENGDU", "TORONTO", "STRASBOURG", "WARSAW", "MONTREAL"],
        "when": ["on Sunday", "on Monday evening", "early on Tuesday", "on Wednesday", "late on Thursday",
                 "on Friday afternoon", "this week", "last month", "after a night of talks",
                 "hours before the deadline"],
        "coda": ["a decision that will reach millions of households", "which critics called long overdue",
                 "after weeks of speculation", "as protesters gathered outside", "with little warning",
                 "in a break with earlier policy", "pending a court ruling", "while negotiations go on",
                 "to the relief of local businesses", "despite a tight budget"],
        "figure": ["The share rose to {a}.{b} per cent, from {c}.{b} per cent a year earlier.",
                   "Officials put the cost at about {a} billion euros over {c} years.",
                   "Roughly {a},{b}00 people are affected, according to first estimates.",
                   "Turnout reached {a} per cent in the first round."],
        "head": ["What was decided", "How we got here", "Reactions", "What happens next", "The numbers",
                 "Why it matters", "On the ground"],
        "who": ["a senior official", "the agency's spokeswoman", "an economist at the central bank",
                "the lead researcher", "a local shop owner", "a union representative"],
        "said": "said",
        "more": ["the full report", "the official statement", "our earlier coverage", "the live blog",
                 "the underlying data"],
        "read": "Read {link} for details.",
        "name": ["Ana Ruiz", "Tom Becker", "Priya Nair", "Louis Martin", "Chen Yu", "Sara Lind"],
    },
    "fr": {
        "actor": ["Le ministère des Finances", "Le conseil municipal", "L'autorité portuaire",
                  "Un collectif d'économistes", "L'institut de la statistique", "La direction des hôpitaux",
                  "Le régulateur ferroviaire", "La communauté du littoral", "L'agence de l'énergie",
                  "La ligue de football", "La fédération agricole", "La Commission européenne",
                  "L'opposition", "Une équipe universitaire", "Le service météorologique",
                  "L'association des compagnies aériennes"],
        "act": ["valide", "conteste", "détaille", "prolonge", "critique", "reporte", "fait réexaminer",
                "finance", "réclame une enquête sur", "réduit", "augmente le budget pour", "défend"],
        "topic": ["la modernisation du rail", "le rationnement de l'eau", "la réforme des retraites",
                  "les permis d'éolien en mer", "le plan de cessez-le-feu", "les exportations de céréales",
                  "la rénovation du stade", "le prix des médicaments", "le programme de logement",
                  "le haut débit rural", "les quotas de pêche", "la digue anti-crue",
                  "le recyclage des batteries", "une taxe sur le kérosène"],
        "place": ["à Lisbonne", "à Nairobi", "à Marseille", "à Chengdu", "à Toronto", "dans le nord",
                  "sur le littoral", "près de la frontière", "à Strasbourg", "à Hong Kong", "à Montréal",
                  "à Varsovie"],
        "city": ["LISBONNE", "NAIROBI", "MARSEILLE", "CHENGDU", "TORONTO", "STRASBOURG", "VARSOVIE", "MONTRÉAL"],
        "when": ["dimanche", "lundi soir", "mardi matin", "mercredi", "tard jeudi", "vendredi après-midi",
                 "cette semaine", "le mois dernier", "après une nuit de négociations", "à quelques heures de l'échéance"],
        "coda": ["une décision qui concerne des millions de foyers", "que ses détracteurs jugeaient attendue depuis longtemps",
                 "après des semaines de rumeurs", "tandis que des manifestants se rassemblaient devant le bâtiment",
                 "presque sans préavis", "en rupture avec la politique précédente", "dans l'attente d'une décision de justice",
                 "alors que les discussions se poursuivent", "au soulagement des commerçants", "malgré un budget serré"],
        "figure": ["La part est passée à {a},{b} %, contre {c},{b} % un an plus tôt.",
                   "Le coût est estimé à environ {a} milliards d'euros sur {c} ans.",
                   "Environ {a} {b}00 personnes sont concernées, selon les premières estimations.",
                   "La participation a atteint {a} % au premier tour."],
        "head": ["Ce qui a été décidé", "Comment on en est arrivé là", "Réactions", "La suite", "Les chiffres",
                 "Pourquoi c'est important", "Sur le terrain"],
        "who": ["un haut fonctionnaire", "la porte-parole de l'agence", "un économiste de la banque centrale",
                "la chercheuse principale", "un commerçant du quartier", "un représentant syndical"],
        "said": "a déclaré",
        "more": ["le rapport complet", "le communiqué officiel", "nos articles précédents", "le direct",
                 "les données brutes"],
        "read": "Consultez {link} pour plus de détails.",
        "name": ["Ana Ruiz", "Tom Becker", "Priya Nair", "Louis Martin", "Chen Yu", "Sara Lind"],
    },
    "zh": {
        "actor": ["财政部", "市议员们", "港务局", "一组经济学家", "统计局", "医院管理层", "铁路监管机构",
                  "沿海城镇", "能源署", "足球联赛", "农业合作社", "欧盟委员会", "反对派", "大学研究人员",
                  "气象部门", "航空公司高管"],
        "act": ["批准", "反对", "公布", "投票延长", "质疑", "推迟谈判", "下令审查", "同意资助", "呼吁调查",
                "缩减", "加倍投入", "捍卫"],
        "topic": ["铁路升级计划", "限水措施", "养老金改革", "海上风电许可", "停火方案", "粮食出口", "体育场翻新",
                  "药品价格", "住房计划", "农村宽带", "捕鱼配额", "防洪堤", "电池回收", "航空燃油税"],
        "place": ["在里斯本", "在内罗毕", "在马赛", "在成都", "在多伦多", "在北部地区", "在沿海地区", "在边境附近",
                  "在斯特拉斯堡", "在香港", "在蒙特利尔", "在华沙"],
        "city": ["里斯本", "内罗毕", "马赛", "成都", "多伦多", "斯特拉斯堡", "华沙", "蒙特利尔"],
        "when": ["周日", "周一晚间", "周二清晨", "周三", "周四深夜", "周五下午", "本周", "上个月",
                 "经过一夜谈判后", "在截止日期前几小时"],
        "coda": ["这一决定将影响数百万家庭", "批评人士称此举早该实施", "此前数周外界猜测不断",
                 "与此同时抗议者在楼外聚集", "事先几乎没有预警", "这与此前的政策明显不同", "目前仍待法院裁决",
                 "谈判仍在继续", "当地商户对此松了一口气", "尽管预算十分紧张"],
        "figure": ["这一比例升至{a}.{b}%，一年前为{c}.{b}%。", "官方估计，未来{c}年的成本约为{a}0亿欧元。",
                   "初步估计约有{a}{b}00人受到影响。", "第一轮投票率达到{a}%。"],
        "head": ["决定内容", "事件由来", "各方反应", "下一步", "关键数字", "为何重要", "现场情况"],
        "who": ["一名高级官员", "该机构女发言人", "央行一位经济学家", "首席研究员", "一位当地店主", "一名工会代表"],
        "said": "表示",
        "more": ["完整报告", "官方声明", "此前报道", "实时报道", "原始数据"],
        "read": "详情请见{link}。",
        "name": ["Ana Ruiz", "Tom Becker", "Priya Nair", "Louis Martin", "Chen Yu", "Sara Lind"],
    },
}
EN_PAST = dict(zip(VOCAB["en"]["act"], [
    "signed off on", "pushed back against", "published details of", "voted to extend", "raised doubts over",
    "postponed talks on", "ordered a review of", "agreed to fund", "called for an inquiry into", "scaled back",
    "doubled spending on", "defended"]))
DATELINE = {"en": "**{city} —**", "fr": "**{city} —**", "zh": "**{city}电**"}
QUOTES = {"en": ("\u201c", "\u201d"), "fr": ("« ", " »"), "zh": ("\u201c", "\u201d")}


def _upper_first(text):
    return text[:1].upper() + text[1:]


def _lower_first(text):
    # "The finance ministry" -> "the finance ministry" in mid-sentence, but keep proper names.
    keep = ("The European", "La Commission")
    return text if text.startswith(keep) else text[:1].lower() + text[1:]


class Writer:
    """Builds Markdown text in one language from a seeded random source."""

    def __init__(self, lang, rng):
        self.lang, self.rng, self.v = lang, rng, VOCAB[lang]

    def pick(self, key):
        return self.rng.choice(self.v[key])

    def figure(self):
        r = self.rng
        return self.pick("figure").format(a=r.randint(2, 89), b=r.randint(1, 9), c=r.randint(2, 9))

    def clause(self, emphasis=False):
        """One news sentence: who did what to which topic, where, when, with a coda."""
        actor, act, topic = self.pick("actor"), self.pick("act"), self.pick("topic")
        place, when, coda = self.pick("place"), self.pick("when"), self.pick("coda")
        if self.lang == "zh":
            if emphasis:  # Han text on both sides of the asterisks, so CommonMark closes the emphasis
                topic = f"*{topic}*"
            return f"{actor}{when}{place}{act}{topic}，{coda}。"
        if emphasis:
            topic = f"*{topic}*"
        if self.lang == "en":
            verb = EN_PAST[act]
            if self.rng.random() < 0.5:
                return f"{actor} {verb} {topic} {place} {when}, {coda}."
            return f"{_upper_first(when)}, {_lower_first(actor)} {verb} {topic} {place}, {coda}."
        if self.rng.random() < 0.5:
            return f"{actor} {act} {topic} {place} {when}, {coda}."
        return f"{_upper_first(when)}, {_lower_first(actor)} {act} {topic} {place}, {coda}."

    def paragraph(self, sentences, emphasis=False, link=None):
        parts = [self.clause(emphasis and k == 0) for k in range(sentences)]
        if self.rng.random() < 0.6:
            parts.insert(self.rng.randrange(len(parts) + 1), self.figure())
        if link:
            parts.append(self.v["read"].format(link=link))
        return ("" if self.lang == "zh" else " ").join(parts)

    def link(self, slug):
        text = self.pick("more")
        if self.rng.random() < 0.5:
            return f"[{text}](https://news.example.com/{CODE[self.lang].lower()}/archive/{slug}/)"
        return f"[{text}](https://data.example.org/reports/{self.rng.randint(1000, 9999)})"

    def quote(self):
        open_q, close_q = QUOTES[self.lang]
        said = self.v["said"]
        who = self.pick("who")
        text = self.clause()
        if self.lang == "zh":
            return f"> {open_q}{text}{close_q}{who}{said}。"
        return f"> {open_q}{text[:-1]},{close_q} {said} {who}."

    def listing(self):
        items = [self.clause() for _ in range(self.rng.randint(3, 5))]
        if self.rng.random() < 0.5:
            return "\n".join(f"- {item}" for item in items)
        return "\n".join(f"{k}. {item}" for k, item in enumerate(items, 1))


def count_words(lang, text):
    """Words for en/fr; for Chinese, two Han characters count as one word."""
    if lang == "zh":
        return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") // 2
    return len(text.split())


def make_body(lang, rng, city, slug, words):
    w = Writer(lang, rng)
    heads = rng.sample(VOCAB[lang]["head"], 4)
    blocks = [DATELINE[lang].format(city=VOCAB[lang]["city"][city]) + " " + w.paragraph(3, emphasis=True),
              w.paragraph(rng.randint(2, 4)),
              f"## {heads[0]}",
              w.paragraph(rng.randint(2, 4), link=w.link(slug)),
              w.listing(),
              w.quote(),
              f"## {heads[1]}"]
    subheads = heads[2:]
    while count_words(lang, "\n\n".join(blocks)) < words:
        blocks.append(w.paragraph(rng.randint(2, 5), emphasis=rng.random() < 0.3,
                                  link=w.link(slug) if rng.random() < 0.25 else None))
        if subheads and rng.random() < 0.2:
            blocks.append(f"### {subheads.pop()}")
    return "\n\n".join(blocks) + "\n"


def slugify(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def make_story(k, seed=SEED, published=None, breaking=None):
    """Story k of the corpus: a dict with id/slug/category/published/breaking/author and
    per-language title, summary, body. `published`/`breaking` override the seeded values
    (used by run.py for stories added during a benchmark)."""
    rng = random.Random(f"{seed}#{k}")
    category = rng.choice(CATEGORIES)
    minutes = 3 + SPACING_MINUTES * k + rng.randint(0, 8)
    when = published or (NOW - datetime.timedelta(minutes=minutes, seconds=rng.randint(0, 59)))
    is_breaking = rng.random() < BREAKING_SHARE if breaking is None else breaking
    picks = {key: rng.randrange(len(VOCAB["en"][key])) for key in ("actor", "act", "topic", "place")}
    city = rng.randrange(len(VOCAB["en"]["city"]))
    words = rng.randint(400, 800)
    author = rng.choice(VOCAB["en"]["name"])
    en = VOCAB["en"]
    slug = f"{slugify(en['actor'][picks['actor']] + ' ' + en['act'][picks['act']] + ' ' + en['topic'][picks['topic']])[:56].rstrip('-')}-{k}"
    texts = {}
    for lang in LANGS:
        v = VOCAB[lang]
        actor, act, topic, place = (v[key][picks[key]] for key in ("actor", "act", "topic", "place"))
        if lang == "zh":
            title = f"{actor}{act}{topic}"
            summary = f"{actor}{place}{act}{topic}。{Writer(lang, random.Random(f'{seed}#{k}#s')).clause()}"
        else:
            title = f"{actor} {act} {topic}"
            summary = f"{actor} {act} {topic} {place}. {Writer(lang, random.Random(f'{seed}#{k}#s')).figure()}"
        body = make_body(lang, random.Random(f"{seed}#{k}#{lang}"), city, slug, words)
        texts[lang] = {"title": title, "summary": summary, "body": body}
    return {"k": k, "id": f"s{k:06d}", "slug": slug, "category": category, "published": when,
            "breaking": is_breaking, "author": author, "text": texts}


def iso(when):
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def q(text):
    """A YAML/TOML-safe double-quoted string (a JSON string is valid in both)."""
    return json.dumps(text, ensure_ascii=False)


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# ------------------------------------------------------------------ newsgen form
def newsgen_config(push=None):
    lines = ["title: {" + ", ".join(f"{CODE[l]}: {q(SITE_TITLE[l])}" for l in LANGS) + "}",
             "description:"] + [f"  {CODE[l]}: {q(SITE_DESCRIPTION[l])}" for l in LANGS]
    lines += ["base_url: https://news.example.com/", "timezone: UTC", "languages:"]
    for l in LANGS:
        lines += [f"  - code: {CODE[l]}", f"    name: {HUB_NAME[l]}"]
    lines.append("categories:")
    for c in CATEGORIES:
        lines += [f"  - name: {c}",
                  "    title: {" + ", ".join(f"{CODE[l]}: {q(CATEGORY_TITLE[l][c])}" for l in LANGS) + "}"]
    lines += ["missing_language: fallback", "page_size: 20", "front_page_size: 30"]
    if push:
        lines += ["push:"] + [f"  {key}: {value}" for key, value in push.items()]
    return "\n".join(lines) + "\n"


def newsgen_story_path(site, story):
    return os.path.join(site, "content", story["category"].lower(), story["slug"] + ".md")


def newsgen_story_text(story):
    fm = ["---", f"id: {story['id']}", f"category: {story['category']}", f"published: {iso(story['published'])}"]
    if story["breaking"]:
        fm.append("breaking: true")
    fm.append(f"author: {story['author']}")
    for field in ("title", "summary"):
        fm.append(f"{field}:")
        fm += [f"  {CODE[l]}: {q(story['text'][l][field])}" for l in LANGS]
    fm.append("---")
    parts = ["\n".join(fm) + "\n"]
    for l in LANGS:
        parts.append(f"<!-- lang: {CODE[l]} -->\n\n{story['text'][l]['body']}")
    return "\n".join(parts)


def write_newsgen_story(site, story):
    path = newsgen_story_path(site, story)
    put(path, newsgen_story_text(story))
    return path


def write_newsgen(site, stories, templates, push=None):
    put(os.path.join(site, "newsgen.yml"), newsgen_config(push))
    shutil.copytree(templates, os.path.join(site, "templates"))
    for story in stories:
        write_newsgen_story(site, story)


# ------------------------------------------------------------------ Hugo form
# Idiomatic multilingual Hugo: one content directory per language (translations share
# a path), a `categories` taxonomy with translated term titles in _index.md files,
# paginated term pages, RSS for home and terms, Hugo's multilingual sitemap, and a
# theme that shows what newsgen's default theme shows.
HUGO_LAYOUTS = {
    "_default/baseof.html": """<!DOCTYPE html>
<html lang="{{ .Site.LanguageCode }}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ if .IsHome }}{{ .Site.Title }}{{ else }}{{ .Title }} · {{ .Site.Title }}{{ end }}</title>
{{ with .Description }}<meta name="description" content="{{ . }}">{{ end }}
<link rel="canonical" href="{{ .Permalink }}">
{{ range .AllTranslations }}<link rel="alternate" hreflang="{{ .Site.LanguageCode }}" href="{{ .Permalink }}">
{{ end }}{{ with .OutputFormats.Get "rss" }}<link rel="alternate" type="application/rss+xml" href="{{ .Permalink }}">
{{ end }}<link rel="stylesheet" href="{{ "style.css" | absURL }}">
</head>
<body>
<header><a class="brand" href="{{ .Site.Home.RelPermalink }}">{{ .Site.Title }}</a>
<nav>{{ range .Site.Params.categories }}<a href="{{ printf "categories/%s/" . | relLangURL }}">{{ i18n . }}</a> {{ end }}</nav>
</header>
<main id="main">{{ block "main" . }}{{ end }}</main>
<footer>{{ range .Site.Home.AllTranslations }}<a href="{{ .RelPermalink }}" hreflang="{{ .Site.LanguageCode }}">{{ .Language.LanguageName }}</a> {{ end }}</footer>
</body>
</html>
""",
    "partials/card.html": """<li class="card{{ if .Params.breaking }} card-breaking{{ end }}"><article>
<p class="kicker">{{ if .Params.breaking }}<strong class="badge">{{ i18n "breaking" }}</strong> {{ end }}{{ range .Params.categories }}<a href="{{ printf "categories/%s/" (urlize .) | relLangURL }}">{{ i18n (urlize .) }}</a>{{ end }}</p>
<h3><a href="{{ .RelPermalink }}">{{ .Title }}</a></h3>
<p class="summary">{{ .Params.summary }}</p>
<p class="meta"><time datetime="{{ .Date.Format "2006-01-02T15:04:05Z07:00" }}">{{ .Date.Format "2 Jan 2006 15:04" }}</time></p>
</article></li>
""",
    "_default/single.html": """{{ define "main" }}<article class="story">
<header>
<p class="kicker">{{ if .Params.breaking }}<strong class="badge">{{ i18n "breaking" }}</strong> {{ end }}{{ range .Params.categories }}<a href="{{ printf "categories/%s/" (urlize .) | relLangURL }}">{{ i18n (urlize .) }}</a> {{ end }}</p>
<h1>{{ .Title }}</h1>
<p class="standfirst">{{ .Params.summary }}</p>
<p class="meta">{{ with .Params.author }}<span class="byline">{{ i18n "by" }} {{ . }}</span> · {{ end }}<span>{{ i18n "published" }} <time datetime="{{ .Date.Format "2006-01-02T15:04:05Z07:00" }}">{{ .Date.Format "2 January 2006 15:04" }}</time></span></p>
</header>
<div class="body">
{{ .Content }}
</div>
</article>{{ end }}
""",
    "_default/list.html": """{{ define "main" }}<h1>{{ .Title }}</h1>
<ol class="cards">
{{ range .Paginator.Pages }}{{ partial "card.html" . }}{{ end }}</ol>
{{ with .Paginator }}<nav class="pager">{{ if .HasPrev }}<a rel="prev" href="{{ .Prev.URL }}">← {{ i18n "newer" }}</a>{{ end }}
<span>{{ .PageNumber }} / {{ .TotalPages }}</span>
{{ if .HasNext }}<a rel="next" href="{{ .Next.URL }}">{{ i18n "older" }} →</a>{{ end }}</nav>{{ end }}{{ end }}
""",
    "index.html": """{{ define "main" }}<h1 class="visually-hidden">{{ .Site.Title }}</h1>
<section><h2>{{ i18n "latest" }}</h2>
<ol class="cards">
{{ range first 30 .Site.RegularPages }}{{ partial "card.html" . }}{{ end }}</ol>
</section>{{ end }}
""",
}


def hugo_config():
    cats = json.dumps([c.lower() for c in CATEGORIES])
    lines = ['baseURL = "https://news.example.com/"', 'title = "Example News"',
             'defaultContentLanguage = "en"', "defaultContentLanguageInSubdir = true",
             'timeZone = "UTC"', "paginate = 20", "rssLimit = 50", "buildFuture = true",
             'disableKinds = ["section", "taxonomy"]', 'ignoreErrors = ["error-disable-taxonomy"]', "", "[params]", f"  categories = {cats}", "",
             "[taxonomies]", '  category = "categories"', "",
             "[permalinks]", '  news = "/:year/:month/:day/:slug/"', "",
             "[outputs]", '  home = ["HTML", "RSS"]', '  term = ["HTML", "RSS"]', "",
             "[languages]"]
    for weight, l in enumerate(LANGS, 1):
        lines += [f"  [languages.{HUGO_KEY[l]}]", f"    languageCode = {q(CODE[l])}",
                  f"    languageName = {q(HUB_NAME[l])}", f"    title = {q(SITE_TITLE[l])}",
                  f"    weight = {weight}", f'    contentDir = "content/{HUGO_KEY[l]}"']
        if l == "zh":
            lines.append("    hasCJKLanguage = true")
        lines += [f"    [languages.{HUGO_KEY[l]}.params]", f"      description = {q(SITE_DESCRIPTION[l])}"]
    return "\n".join(lines) + "\n"


def hugo_story_path(site, story, lang):
    return os.path.join(site, "content", HUGO_KEY[lang], "news", story["slug"] + ".md")


def write_hugo_story(site, story):
    paths = []
    for l in LANGS:
        t = story["text"][l]
        fm = ["---", f"title: {q(t['title'])}", f"date: {iso(story['published'])}", f"slug: {story['slug']}",
              f"translationKey: {story['id']}", f"categories: [{story['category'].lower()}]",
              f"breaking: {'true' if story['breaking'] else 'false'}", f"author: {q(story['author'])}",
              f"summary: {q(t['summary'])}", "---", ""]
        path = hugo_story_path(site, story, l)
        put(path, "\n".join(fm) + t["body"])
        paths.append(path)
    return paths


def write_hugo(site, stories, templates):
    put(os.path.join(site, "config.toml"), hugo_config())
    for name, text in HUGO_LAYOUTS.items():
        put(os.path.join(site, "layouts", name), text)
    css = os.path.join(templates, "static", "style.css")
    if os.path.exists(css):
        os.makedirs(os.path.join(site, "static"), exist_ok=True)
        shutil.copy(css, os.path.join(site, "static", "style.css"))
    for l in LANGS:
        strings = dict(UI[l])
        strings.update({c.lower(): CATEGORY_TITLE[l][c] for c in CATEGORIES})
        put(os.path.join(site, "i18n", f"{HUGO_KEY[l]}.toml"),
            "".join(f"{key} = {q(value)}\n" for key, value in strings.items()))
        for c in CATEGORIES:
            put(os.path.join(site, "content", HUGO_KEY[l], "categories", c.lower(), "_index.md"),
                f"---\ntitle: {q(CATEGORY_TITLE[l][c])}\n---\n")
    for story in stories:
        write_hugo_story(site, story)


# ------------------------------------------------------------------ edits used by run.py
def append_to_english_body(newsgen_file, hugo_file, sentence):
    """Add one sentence at the end of the English body in both forms of one story."""
    if newsgen_file:
        with open(newsgen_file, encoding="utf-8") as f:
            text = f.read()
        marker = f"\n<!-- lang: {CODE['fr']} -->"
        text = text.replace(marker, f"\n{sentence}\n{marker}", 1)
        put(newsgen_file, text)
    if hugo_file:
        with open(hugo_file, "a", encoding="utf-8") as f:
            f.write(f"\n{sentence}\n")


def generate(n, out, seed=SEED, templates=None, forms=("newsgen", "hugo")):
    templates = templates or os.path.join(REPO, "templates")
    for form in forms:
        path = os.path.join(out, form)
        if os.path.exists(path):
            shutil.rmtree(path)
    stories = [make_story(k, seed) for k in range(n)]
    if "newsgen" in forms:
        write_newsgen(os.path.join(out, "newsgen"), stories, templates)
    if "hugo" in forms:
        write_hugo(os.path.join(out, "hugo"), stories, templates)
    return stories


def main():
    p = argparse.ArgumentParser(description="Generate the newsgen benchmark corpus (newsgen and Hugo forms).")
    p.add_argument("--n", type=int, default=1000, help="number of stories (each in en, fr, zh-Hans)")
    p.add_argument("--out", required=True, help="folder that receives newsgen/ and hugo/")
    p.add_argument("--seed", default=SEED)
    p.add_argument("--templates", default=os.path.join(REPO, "templates"), help="newsgen theme to copy")
    p.add_argument("--forms", default="newsgen,hugo", help="comma list of newsgen,hugo")
    a = p.parse_args()
    stories = generate(a.n, a.out, a.seed, a.templates, tuple(a.forms.split(",")))
    breaking = sum(s["breaking"] for s in stories)
    print(f"{a.n} stories x {len(LANGS)} languages ({breaking} breaking) into {a.out}; "
          f"newest {iso(stories[0]['published']) if stories else '-'}, SOURCE_DATE_EPOCH={NOW_EPOCH}")


if __name__ == "__main__":
    main()
