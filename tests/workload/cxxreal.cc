// SPDX-License-Identifier: GPL-2.0
// What bench/python-real.sh BENCH_WORKLOAD=cc1plus compiles: ordinary
// standard-library C++ (containers, algorithms, strings, streams,
// templates), so that cc1plus parses, instantiates and optimizes, with
// its system calls (reading the headers, writing the output) from deep
// in its parser.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

template <typename T> struct Stats {
	std::vector<T> v;
	void add(T x) { v.push_back(x); }
	T sum() const { return std::accumulate(v.begin(), v.end(), T{}); }
	T max() const { return v.empty() ? T{} : *std::max_element(v.begin(), v.end()); }
};

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};
struct Rect : Shape {
	double w, h;
	Rect(double a, double b) : w(a), h(b) {}
	double area() const override { return w * h; }
};
struct Circle : Shape {
	double r;
	explicit Circle(double a) : r(a) {}
	double area() const override { return 3.14159 * r * r; }
};

int main()
{
	std::map<std::string, Stats<double>> by_kind;
	std::unordered_map<int, std::string> names;
	std::vector<std::unique_ptr<Shape>> shapes;
	for (int i = 0; i < 100; i++) {
		if (i % 3)
			shapes.push_back(std::make_unique<Rect>(i, i + 1));
		else
			shapes.push_back(std::make_unique<Circle>(i));
		names[i] = "shape" + std::to_string(i);
	}
	for (const auto &s : shapes)
		by_kind[dynamic_cast<Rect *>(s.get()) ? "rect" : "circle"].add(s->area());
	std::ostringstream out;
	for (const auto &[k, st] : by_kind)
		out << k << ' ' << st.sum() << ' ' << st.max() << '\n';
	std::vector<std::string> keys;
	for (const auto &[i, n] : names)
		keys.push_back(n);
	std::sort(keys.begin(), keys.end());
	std::cout << out.str() << keys.front() << '\n';
	return 0;
}
