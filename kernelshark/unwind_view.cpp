// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark plugin "unwind_stack", its GUI part: the stack view (a dock
 * of the main window), the marks on the graph, and the second pass.
 *
 * KernelShark's plugin interfaces, installed headers only:
 *  - KSHARK_MENU_PLUGIN_INITIALIZER gets the main window; the view is a
 *    QDockWidget added to it (and to its Tools menu), with a
 *    QTextBrowser, deleted by KernelShark before it unloads plugins;
 *  - the draw handler gets the graph's entries (kshark_trace_histo.data,
 *    the rows of the table too): the first draw runs the second pass
 *    (kshark_unwind_join()), each draw puts the marks into the shapes;
 *  - a link in the view ("go there") moves marker A with markEntryA()
 *    (KsPluginsGUI.hpp, libkshark-gui), as KernelShark's own plugins do.
 * The view's content comes from the C part as structures
 * (kshark_unwind_stack_view()).  The one thing without an API, learning
 * which entry is selected, is the shim below (GUI shim).
 *
 * Test hook (the test build only, make test: -DKSHARK_UNWIND_TESTING):
 * KSHARK_UNWIND_TEST="select=SYSTEM/EVENT[:N],dump=FILE" marks the N-th
 * (from 0) entry of the event, writes the view's text to FILE (and where
 * its menu entry is to FILE.menu, the table's selected row to FILE.row),
 * follows the view's first link and writes FILE.jump, marks the entry
 * again and writes FILE.done
 * (tests/userspace/kernelshark/run.sh, kernelshark/screenshot.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include <QAbstractProxyModel>
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QItemSelectionModel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QTableView>
#include <QTextBrowser>
#include <QTextEdit>
#include <QTimer>
#include <QUrl>

#include "libkshark.h"
#include "libkshark-model.h"
#include "libkshark-plugin.h"
#include "KsPlotTools.hpp"
#include "KsPlugins.hpp"
#include "KsPluginsGUI.hpp"

#include "unwind_stack.h"

/* the graph's model: its data array is the table's rows */
static kshark_trace_histo *g_histo;
/* the main window, for markEntryA() */
static void *g_ks;

/* ------------------------------------------------------------------ */
/* Marks on the graph. */

/* a small triangle pointing down at the bin of an asking event */
class StackMark : public KsPlot::PlotObject {
public:
	StackMark(const KsPlot::Point &p, int h) : _x(p.x()), _y(p.y()),
						   _h(h) {}

private:
	int	_x, _y, _h;

	void _draw(const KsPlot::Color &col, float) const override
	{
		KsPlot::Triangle t;
		int w = std::max(3, _h / 6);

		t.setPoint(0, _x - w, _y - _h);
		t.setPoint(1, _x + w, _y - _h);
		t.setPoint(2, _x, _y - _h + 2 * w);
		t._color = col;
		t.setFill(true);
		t.draw();
	}
};

static void data_ready(bool joined);

extern "C" void kshark_unwind_draw(kshark_cpp_argv *argv_c, int sd, int val,
				   int draw_action)
{
	KsCppArgV *a = KS_ARGV_TO_CPP(argv_c);
	const kshark_unwind_mark *m;
	kshark_trace_histo *h = a->_histo;
	int64_t bin, last = -1;
	size_t n, i;
	bool task = draw_action & KSHARK_TASK_DRAW;

	g_histo = h;
	/* the second pass, at the first draw (as sched_events') */
	data_ready(h && kshark_unwind_join(sd, h->data, h->data_size));
	if (!(draw_action & (KSHARK_TASK_DRAW | KSHARK_CPU_DRAW)))
		return;
	m = kshark_unwind_marks(sd, &n);
	if (!m || !h || h->bin_size <= 0 || h->n_bins <= 0)
		return;
	i = std::lower_bound(m, m + n, h->min,
			     [](const kshark_unwind_mark &x, int64_t t) {
				     return x.ts < t;
			     }) - m;
	for (; i < n && m[i].ts <= h->max; i++) {
		if (task ? m[i].pid != val : m[i].cpu != val)
			continue;
		bin = (m[i].ts - h->min) / h->bin_size;
		if (bin >= h->n_bins)
			bin = h->n_bins - 1;
		if (bin == last)
			continue;	/* one mark per bin: no clutter */
		last = bin;

		StackMark *s = new StackMark(a->_graph->bin(bin)._base,
					     a->_graph->height());
		s->_color = KsPlot::Color(200, 0, 120);
		s->_size = 1;
		a->_shapes->push_front(s);
	}
}

/* ------------------------------------------------------------------ */
/* The stack view. */

class StackView : public QDockWidget {
public:
	explicit StackView(QMainWindow *mw);

	void attach();
	void selected();
	void show_entry(const kshark_entry *e);
	bool go(int sd, long long off);
	ssize_t current_row();
	const QString &first_link() const { return _first_link; }
	QString text() const { return _text.toPlainText(); }

	QTextBrowser		_text;
	QPointer<QTableView>	_table;
	QPointer<QItemSelectionModel> _sel;

	QString			_menu;	/* where its toggle action is */

private:
	QString			_first_link;
};

static QPointer<StackView> g_view;

StackView::StackView(QMainWindow *mw)
: QDockWidget("Deferred stack", mw)
{
	setObjectName("unwind_stack_view");
	_text.setOpenLinks(false);
	_text.setMinimumWidth(460);
	_text.setLineWrapMode(QTextEdit::NoWrap);
	_text.setReadOnly(true);
	_text.setHtml("<p><i>Select an event: its kernel stack and its "
		      "named user stack show here.</i></p>"
		      "<p>No trace loaded yet (if KernelShark could not "
		      "read the file, it said why).</p>");
	setWidget(&_text);
	QObject::connect(&_text, &QTextBrowser::anchorClicked,
			 [this](const QUrl &u) {
		QStringList p = u.toString().split(':');

		if (p.size() == 3 && p[0] == "go")
			go(p[1].toInt(), p[2].toLongLong());
	});
	mw->addDockWidget(Qt::RightDockWidgetArea, this);
	mw->resizeDocks({this}, {480}, Qt::Horizontal);

	/* a way back when closed: Tools menu (or the dock's own) */
	for (QMenu *menu : mw->menuBar()->findChildren<QMenu *>()) {
		if (menu->title().remove('&') == "Tools") {
			menu->addAction(toggleViewAction());
			_menu = menu->title().remove('&');
			break;
		}
	}
	attach();
}

/*
 * GUI shim.  KernelShark tells a plugin neither which entry is selected
 * nor when marker A moves (KsPluginsGUI.hpp only sets the markers), and
 * its GUI classes are not installed.  So the view follows the trace
 * viewer's table: the main window's QTableView whose model has an "Info"
 * column.  Its selection (a click in the table, in the graph, or
 * markEntryA()) is a row of a proxy model over the entries in load
 * order, the graph's data array.  This, current_row() and the Info
 * column's shim in the C part are what rely on KernelShark's internals.
 */
void StackView::attach()
{
	QMainWindow *mw = qobject_cast<QMainWindow *>(parent());

	if (!mw)
		return;
	if (!_table) {
		for (QTableView *tv : mw->findChildren<QTableView *>()) {
			QAbstractItemModel *m = tv->model();

			for (int c = 0; m && c < m->columnCount(); c++)
				if (m->headerData(c, Qt::Horizontal)
					    .toString() == "Info")
					_table = tv;
			if (_table)
				break;
		}
	}
	if (!_table || _sel == _table->selectionModel())
		return;
	_sel = _table->selectionModel();
	if (!_sel)
		return;
	QObject::connect(_sel, &QItemSelectionModel::selectionChanged, this,
			 [this]() { selected(); });
	QObject::connect(_sel, &QItemSelectionModel::currentRowChanged, this,
			 [this]() { selected(); });
}

/* The selected row, as an index into KernelShark's entries, or -1. */
ssize_t StackView::current_row()
{
	QAbstractProxyModel *pm;
	QModelIndexList rows;
	QModelIndex idx;

	if (!_table || !_sel)
		return -1;
	rows = _sel->selectedRows();
	idx = rows.isEmpty() ? _sel->currentIndex() : rows.first();
	if (!idx.isValid())
		return -1;
	pm = qobject_cast<QAbstractProxyModel *>(_table->model());
	if (pm)
		idx = pm->mapToSource(idx);
	return idx.isValid() ? idx.row() : -1;
}

/* After a draw: the table exists, and the second pass may just be done. */
static void data_ready(bool joined)
{
	if (!g_view)
		return;
	g_view->attach();
	if (joined) {
		if (g_view->_table)	/* the Info column has more to say */
			g_view->_table->viewport()->update();
		g_view->selected();
	}
}

void StackView::selected()
{
	ssize_t row = current_row();

	if (row < 0)
		return;
	if (!g_histo || (size_t)row >= g_histo->data_size) {
		_text.setHtml("<i>The graph is not drawn yet: select the "
			      "event again.</i>");
		return;
	}
	show_entry(g_histo->data[row]);
}

void StackView::show_entry(const kshark_entry *e)
{
	kshark_unwind_view *v = kshark_unwind_stack_view(e);
	QString html, t, href;

	_first_link.clear();
	if (!v) {
		_text.setHtml("<b>Out of memory</b>");
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const kshark_unwind_line &l = v->line[i];

		t = QString::fromUtf8(l.text).toHtmlEscaped();
		switch (l.kind) {
		case KSHARK_UNWIND_TITLE:
			html += "<p style='margin-top:8px'><b>" + t +
				"</b></p>";
			break;
		case KSHARK_UNWIND_SECTION:
			html += "<p style='margin-top:6px'><b>" + t +
				"</b></p>";
			break;
		case KSHARK_UNWIND_KFRAME:
		case KSHARK_UNWIND_UFRAME:
			html += "<div style='font-family:monospace'>=&gt; " +
				t + "</div>";
			break;
		case KSHARK_UNWIND_INLINED:
			html += "<div style='font-family:monospace;"
				"color:#777'>&nbsp;&nbsp;&nbsp;" + t +
				"</div>";
			break;
		case KSHARK_UNWIND_WARN:
			html += "<p style='color:#b00000'><b>" + t +
				"</b></p>";
			break;
		case KSHARK_UNWIND_LINK:
			href = QString("go:%1:%2").arg(v->stream_id)
				.arg((long long)l.target);
			if (_first_link.isEmpty())
				_first_link = href;
			html += "<p style='margin-top:6px'><a href='" + href +
				"'>" + t + "</a></p>";
			break;
		default:
			html += "<div>" + t + "</div>";
		}
	}
	free(v);
	_text.setHtml(html);
}

/* Go to the entry of stream sd at file offset off: marker A, as a click. */
bool StackView::go(int sd, long long off)
{
	size_t i;

	if (!g_histo || !g_ks)
		return false;
	for (i = 0; i < g_histo->data_size; i++) {
		const kshark_entry *e = g_histo->data[i];

		if (e->stream_id == sd && e->offset == off) {
			markEntryA(g_ks, e);
			return true;
		}
	}
	return false;
}

#ifdef KSHARK_UNWIND_TESTING
/* ------------------------------------------------------------------ */
/* The test hook (test build only). */

struct TestHook {
	QString	event;
	int	nth = 0;
	QString	dump;
	int	step = 0;
	int	tries = 0;
	ssize_t	row = -1;
};

static void hook_write(const QString &path, const QString &what)
{
	QFile f(path);

	if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
		f.write(what.toUtf8());
}

/*
 * The selected row of KernelShark's table as it shows it, one
 * "HEADER=TEXT" line per column: the oracle for what the view repeats
 * (its header's time stamp).
 */
static QString hook_table_row()
{
	QItemSelectionModel *sel;
	QAbstractItemModel *m;
	QModelIndexList rows;
	QModelIndex idx;
	QString out;
	int c;

	if (!g_view->_table || !(sel = g_view->_table->selectionModel()))
		return "no table\n";
	m = g_view->_table->model();
	rows = sel->selectedRows();
	idx = rows.isEmpty() ? sel->currentIndex() : rows.first();
	if (!m || !idx.isValid())
		return "no row selected\n";
	for (c = 0; c < m->columnCount(); c++)
		out += QString("%1=%2\n")
		       .arg(m->headerData(c, Qt::Horizontal).toString(),
			    m->index(idx.row(), c).data().toString());
	return out;
}

static ssize_t hook_find(const TestHook &h)
{
	kshark_context *kctx = nullptr;
	kshark_data_stream *st;
	size_t i;
	int n = 0, id;

	if (!kshark_instance(&kctx))
		return -1;
	for (i = 0; i < g_histo->data_size; i++) {
		const kshark_entry *e = g_histo->data[i];

		st = kshark_get_data_stream(kctx, e->stream_id);
		id = st ? kshark_find_event_id(st, h.event.toUtf8()
					       .constData()) : -1;
		if (id >= 0 && e->event_id == id && n++ == h.nth)
			return i;
	}
	return -1;
}

static void hook_step(TestHook *h, QTimer *t)
{
	QString head;

	if (!g_view)
		return;
	switch (h->step) {
	case 0:		/* wait for the data, then select */
		if (!g_view->_table || !g_histo || !g_histo->data_size) {
			if (++h->tries < 25)
				return;
			/* nothing loaded: what the view says then */
			head = "hook: no entries loaded\n";
			for (const char *f : { "", ".jump", ".done" })
				hook_write(h->dump + f, head +
					   g_view->text() + "\n");
			t->stop();
			return;
		}
		h->row = hook_find(*h);
		if (h->row < 0)
			h->row = 0;	/* the view says what is missing */
		markEntryA(g_ks, g_histo->data[h->row]);
		break;
	case 1:
		head = QString("selected row %1\n").arg(g_view->current_row());
		hook_write(h->dump + ".menu", QString("%1 > %2\n")
			   .arg(g_view->_menu,
				g_view->toggleViewAction()->text()));
		hook_write(h->dump, head + g_view->text() + "\n");
		hook_write(h->dump + ".row", hook_table_row());
		if (!g_view->first_link().isEmpty())
			Q_EMIT g_view->_text.anchorClicked(g_view->first_link());
		break;
	case 2:
		head = QString("selected row %1\n").arg(g_view->current_row());
		hook_write(h->dump + ".jump", head + g_view->text() + "\n");
		markEntryA(g_ks, g_histo->data[h->row]);
		break;
	case 3:
		head = QString("selected row %1\n").arg(g_view->current_row());
		hook_write(h->dump + ".done", head + g_view->text() + "\n");
		t->stop();
		break;
	}
	h->step++;
}

static void hook_start(QObject *owner)
{
	const char *env = getenv("KSHARK_UNWIND_TEST");
	TestHook *h;
	QTimer *t;

	if (!env || !*env)
		return;
	h = new TestHook;
	for (const QString &kv : QString(env).split(',')) {
		if (kv.startsWith("select=")) {
			QStringList p = kv.mid(7).split(':');

			h->event = p[0];
			if (p.size() > 1)
				h->nth = p[1].toInt();
		} else if (kv.startsWith("dump=")) {
			h->dump = kv.mid(5);
		}
	}
	if (h->dump.isEmpty()) {
		delete h;
		return;
	}
	t = new QTimer(owner);
	QObject::connect(t, &QTimer::timeout, owner,
			 [h, t]() { hook_step(h, t); });
	QObject::connect(t, &QObject::destroyed, [h]() { delete h; });
	t->start(700);
}
#else
static void hook_start(QObject *) {}
#endif

/*
 * Called by KernelShark with its main window when the plugin is loaded
 * (-p, the plugin dialog, a session).  The returned widget is deleted by
 * KernelShark before it unloads the plugins.
 */
extern "C" __attribute__((visibility("default")))
void *KSHARK_MENU_PLUGIN_INITIALIZER(void *ks_ptr)
{
	QMainWindow *mw = qobject_cast<QMainWindow *>(
		static_cast<QObject *>(ks_ptr));

	if (g_view)
		return g_view.data();
	if (!mw)
		return nullptr;
	g_ks = ks_ptr;
	g_view = new StackView(mw);
	hook_start(g_view.data());
	return g_view.data();
}
