// SPDX-License-Identifier: LGPL-2.1
/*
 * KernelShark plugin "unwind_stack", its GUI part, as SchedEvents.cpp is
 * sched_events': the draw handler (the second pass at the first draw, a
 * mark over each event that asked for a deferred user stack), and a dock
 * with the stacks of the selected entry and the call tree of the stacks
 * in view (of the visible time range, or of the selected task in it),
 * through KernelShark's plugin hooks addPluginDock() and
 * connectEntrySelected() (kernelshark/patches).
 *
 * Test hook (make test, -DKSHARK_UNWIND_TESTING):
 * KSHARK_UNWIND_TEST="select=SYSTEM/EVENT[:N],dump=FILE" marks the N-th
 * (from 0) entry of the event with markEntryA(), writes the dock's text
 * to FILE (where its menu entry is to FILE.menu, KernelShark's table row
 * to FILE.row, the call tree of the visible range to FILE.tree, of the
 * selected task to FILE.tree-task, with the range to FILE.range), follows
 * the first link (FILE.jump), marks the entry again (FILE.done); with
 * ",tab=tree", shows the call tree then.
 */
#include <vector>

#include <QComboBox>
#include <QDockWidget>
#include <QFontDatabase>
#include <QPointer>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

#include "libkshark.h"
#include "libkshark-model.h"
#include "KsPlotTools.hpp"
#include "KsPlugins.hpp"
#include "KsPluginsGUI.hpp"
#include "unwind_stack.h"

using namespace KsPlot;

static void *ks_ptr;			/* the main window */
static kshark_trace_histo *histo;	/* the entries, from the draw */
static QPointer<QDockWidget> dock;
static QTextBrowser *view;
static std::vector<const kshark_entry *> links;
/* the call tree: of the visible range of stream tree_sd, or of the
 * selected entry's task in it */
static QTabWidget *tabs;
static QTextBrowser *tree_view;
static QComboBox *tree_of;
static int tree_sd = -1, sel_pid = -1;
static int64_t range_min, range_max;

static void show_tree()
{
	bool task = tree_of->currentIndex() == 1;
	char *text;

	if (tree_sd < 0) {
		tree_view->setPlainText("No trace drawn yet");
		return;
	}
	if (task && sel_pid < 0) {
		tree_view->setPlainText("Select an event of the task");
		return;
	}
	text = kshark_unwind_tree(tree_sd, range_min, range_max,
				  task ? sel_pid : -1, 0);
	tree_view->setPlainText(text ? text : "Out of memory");
	free(text);
}

/* shown again when its tab is (not at every draw) */
static void tree_changed()
{
	if (tabs && tabs->currentWidget() != view)
		QTimer::singleShot(0, tree_view, show_tree);
}

/* A small triangle over the bin of an event that asked. */
class StackMark : public PlotObject {
public:
	StackMark(const Point &p, int h) : _base(p), _h(h) {}

private:
	Point	_base;
	int	_h;

	void _draw(const Color &col, float) const override
	{
		Triangle t;
		int w = std::max(3, _h / 6);

		t.setPoint(0, _base.x() - w, _base.y() - _h);
		t.setPoint(1, _base.x() + w, _base.y() - _h);
		t.setPoint(2, _base.x(), _base.y() - _h + 2 * w);
		t._color = col;
		t.setFill(true);
		t.draw();
	}
};

static PlotObject *makeShape(std::vector<const Graph *> graph,
			     std::vector<int> bin,
			     std::vector<kshark_data_field_int64 *>,
			     Color col, float size)
{
	StackMark *m = new StackMark(graph[0]->bin(bin[0])._base,
				     graph[0]->height());

	m->_color = col;
	m->_size = size;
	return m;
}

void plugin_unwind_draw(kshark_cpp_argv *argv_c, int sd, int val,
			int draw_action)
{
	KsCppArgV *argv = KS_ARGV_TO_CPP(argv_c);
	plugin_unwind_context *ctx = __get_context(sd);
	bool task = draw_action & KSHARK_TASK_DRAW;

	histo = argv->_histo;
	if (!ctx || ctx->note || !histo)
		return;
	/* the second pass, at the first draw (as sched_events') */
	kshark_unwind_second_pass(sd, histo->data, histo->data_size);
	if (sd != tree_sd || histo->min != range_min || histo->max != range_max) {
		tree_sd = sd;
		range_min = histo->min;
		range_max = histo->max;
		tree_changed();
	}
	if (!task && !(draw_action & KSHARK_CPU_DRAW))
		return;
	/* ctx->at: the events that asked (field: the task) */
	IsApplicableFunc asked = [=] (kshark_data_container *d, ssize_t i) {
		return (task ? d->data[i]->field : d->data[i]->entry->cpu) == val;
	};
	eventFieldPlotMax(argv, ctx->at, asked, makeShape, {200, 0, 120}, -1);
}

static void show_entry(const kshark_entry *e)
{
	struct kshark_unwind_view *v = kshark_unwind_view(e, 0);
	QString html, l;
	char *name;

	links.clear();
	if (e && e->pid != sel_pid) {
		sel_pid = e->pid;
		if (tree_of->currentIndex() == 1)
			tree_changed();
	}
	if (!v) {
		view->setPlainText("Out of memory");
		return;
	}
	for (const QString &line : QString::fromUtf8(v->text).split('\n')) {
		l = line.toHtmlEscaped();
		if (line.startsWith(" => "))
			html += "<div style='font-family:monospace'>" + l + "</div>";
		else if (line.startsWith(" <"))
			html += "<p style='margin-top:6px'><b>" + l + "</b></p>";
		else if (line.contains(" pid="))
			html += "<p style='margin-top:8px'><b>" + l + "</b></p>";
		else if (!line.startsWith("time ") && !line.startsWith("This "))
			html += "<p style='color:#b00000'>" + l + "</p>";
		else
			html += "<div>" + l + "</div>";
	}
	for (size_t i = 0; i < v->n_links; i++) {
		name = kshark_get_event_name(v->link[i]);
		html += QString("<p><a href='go:%1'>Go to %2 at %3, CPU %4</a></p>")
			.arg(i).arg(name).arg(v->link[i]->ts * 1e-9, 0, 'f', 6)
			.arg(v->link[i]->cpu);
		links.push_back(v->link[i]);
		free(name);
	}
	free(v);
	view->setHtml(html);
}

#ifdef KSHARK_UNWIND_TESTING
#include <QFile>
#include <QMainWindow>
#include <QMenu>
#include <QTableView>
#include <QTimer>

static void hook_write(const QString &path, const QString &what)
{
	QFile f(path);

	if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
		f.write(what.toUtf8());
}

/* The row KernelShark's table shows selected, "HEADER=TEXT" a column. */
static QString hook_table_row()
{
	QMainWindow *mw = static_cast<QMainWindow *>(ks_ptr);
	QString out;

	for (QTableView *tv : mw->findChildren<QTableView *>()) {
		QModelIndexList rows = tv->selectionModel() ?
			tv->selectionModel()->selectedRows() : QModelIndexList();

		for (int c = 0; !rows.isEmpty() && c < tv->model()->columnCount(); c++)
			out += QString("%1=%2\n")
			       .arg(tv->model()->headerData(c, Qt::Horizontal).toString(),
				    tv->model()->index(rows[0].row(), c).data().toString());
	}
	return out;
}

/*
 * Marker A on the N-th entry of the event: of the graph's entries, or
 * where the plugin is not active (no draw handler) of a load of the hook's
 * own (markEntryA() marks by time).
 */
static bool hook_select(QString event, int nth)
{
	static kshark_entry **rows;
	static ssize_t n;
	kshark_context *kctx = nullptr;
	kshark_data_stream *st;
	ssize_t i;

	if (!kshark_instance(&kctx))
		return false;
	if (histo) {
		rows = histo->data;
		n = histo->data_size;
	} else if (!rows && kctx->n_streams > 0) {
		n = kshark_load_all_entries(kctx, &rows);
	}
	for (i = 0; i < n; i++) {
		st = kshark_get_data_stream(kctx, rows[i]->stream_id);
		if (st && rows[i]->event_id == kshark_find_event_id(st,
				event.toUtf8().constData()) && !nth--)
			break;
	}
	if (n > 0)
		markEntryA(ks_ptr, rows[i < n ? i : 0]);
	return n > 0;
}

static void hook_step(QString event, int nth, QString dump, QTimer *t)
{
	static int step, tries;
	QString menus;

	switch (step) {
	case 0:		/* wait for the first draw (none: not active), select */
		if ((!histo && ++tries < 8) || !hook_select(event, nth)) {
			if (++tries < 25)
				return;
			for (const char *f : { "", ".jump", ".done" })
				hook_write(dump + f, "hook: no entries loaded\n" +
					   view->toPlainText() + "\n");
			t->stop();
			return;
		}
		break;
	case 1:
		for (QObject *m : dock->toggleViewAction()->associatedObjects())
			if (qobject_cast<QMenu *>(m))
				menus += static_cast<QMenu *>(m)->title() + " > " +
					 dock->toggleViewAction()->text() + "\n";
		hook_write(dump + ".menu", menus);
		hook_write(dump, view->toPlainText() + "\n");
		hook_write(dump + ".row", hook_table_row());
		hook_write(dump + ".range", QString("%1 %2 %3\n").arg(range_min)
			   .arg(range_max).arg(sel_pid));
		tabs->setCurrentIndex(1);
		tree_of->setCurrentIndex(0);
		show_tree();
		hook_write(dump + ".tree", tree_view->toPlainText() + "\n");
		tree_of->setCurrentIndex(1);
		show_tree();
		hook_write(dump + ".tree-task", tree_view->toPlainText() + "\n");
		tree_of->setCurrentIndex(0);
		tabs->setCurrentIndex(0);
		if (!links.empty())
			markEntryA(ks_ptr, links[0]);
		break;
	case 2:
		hook_write(dump + ".jump", view->toPlainText() + "\n");
		hook_select(event, nth);
		break;
	default:
		hook_write(dump + ".done", view->toPlainText() + "\n");
		if (qgetenv("KSHARK_UNWIND_TEST").contains(",tab=tree"))
			tabs->setCurrentIndex(1);
		t->stop();
	}
	step++;
}

static void hook_start(QObject *owner)
{
	QString ev, dump, env = qgetenv("KSHARK_UNWIND_TEST");
	QTimer *t = new QTimer(owner);
	int nth = 0;

	for (const QString &kv : env.split(',')) {
		if (kv.startsWith("select=")) {
			ev = kv.mid(7).section(':', 0, 0);
			nth = kv.mid(7).section(':', 1, 1).toInt();
		} else if (kv.startsWith("dump=")) {
			dump = kv.mid(5);
		}
	}
	if (dump.isEmpty())
		return;
	QObject::connect(t, &QTimer::timeout, owner,
			 [=]() { hook_step(ev, nth, dump, t); });
	t->start(700);
}
#else
static void hook_start(QObject *) {}
#endif

/** Called with the main window when the plugin is loaded. */
extern "C" __attribute__((visibility("default")))
void *KSHARK_MENU_PLUGIN_INITIALIZER(void *gui_ptr)
{
	if (dock)
		return dock.data();
	ks_ptr = gui_ptr;
	dock = new QDockWidget("Deferred stack");
	dock->setObjectName("unwind_stack_view");
	view = new QTextBrowser(dock);
	view->setOpenLinks(false);
	view->setMinimumWidth(460);
	view->setLineWrapMode(QTextEdit::NoWrap);
	view->setHtml("<p><i>Select an event: its kernel stack and its named "
		      "user stack show here.</i></p><p>No trace loaded yet (if "
		      "KernelShark could not read the file, it said why).</p>");
	QObject::connect(view, &QTextBrowser::anchorClicked, [](const QUrl &u) {
		size_t i = u.toString().mid(3).toULong();

		if (i < links.size())
			markEntryA(ks_ptr, links[i]);
	});
	tabs = new QTabWidget(dock);
	tabs->addTab(view, "Stack");
	QWidget *page = new QWidget(tabs);
	QVBoxLayout *box = new QVBoxLayout(page);
	tree_of = new QComboBox(page);
	tree_of->addItems({ "Stacks in the visible time range",
			    "Stacks of the selected task in it" });
	tree_view = new QTextBrowser(page);
	tree_view->setLineWrapMode(QTextEdit::NoWrap);
	tree_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
	box->addWidget(tree_of);
	box->addWidget(tree_view);
	tabs->addTab(page, "Call tree");
	QObject::connect(tabs, &QTabWidget::currentChanged, tree_changed);
	QObject::connect(tree_of, &QComboBox::currentIndexChanged, tree_changed);
	dock->setWidget(tabs);
	addPluginDock(gui_ptr, dock);
	connectEntrySelected(gui_ptr, dock, show_entry);
	hook_start(dock);
	return dock.data();
}
