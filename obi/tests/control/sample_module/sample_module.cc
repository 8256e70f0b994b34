// A minimal custom module for the control-plane tests: the block type SampleCounter
// (1 input, 1 output) passes packets on and counts them.
//   read handle: count (integer)
// Loaded by AddCustomModuleRequest; its descriptor travels in `translation`.
#include <memory>

#include "engine/element.hh"

namespace {

class SampleCounter final : public obi::Element {
 public:
  explicit SampleCounter(const obi::ElementArgs& a) : counts_(a.workers) {}

  void push(uint16_t, obi::Batch& batch, obi::Context& ctx, const obi::Outputs& out) override {
    counts_[ctx.worker].add(batch.n);
    out.emit(0, batch, ctx);
  }

  nlohmann::json read(std::string_view handle) const override {
    if (handle != "count") return Element::read(handle);
    uint64_t sum = 0;
    counts_.for_each([&](const obi::Counter& c) { sum += c.get(); });
    return sum;
  }

 private:
  obi::PerWorker<obi::Counter> counts_;
};

std::unique_ptr<obi::Element> make(const obi::ElementArgs& a) {
  auto e = std::make_unique<SampleCounter>(a);
  e->set_identity(a.name, a.type);
  return e;
}

}  // namespace

OBI_MODULE_DECLARE_ABI()

extern "C" int obi_module_register() {
  obi::register_element("SampleCounter", &make);
  return 0;
}
