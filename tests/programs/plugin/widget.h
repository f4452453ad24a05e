/* widget.h - a class whose constructor and destructor are defined in
 * another unit (widget.cc) than their caller (widget_main.cc). */
struct Widget {
  explicit Widget(int v);
  ~Widget();
  int get() const;
private:
  int v_;
};
