// Interim implementation: one RuleClassifier per set.
#include "common/multi_classifier.hh"

#include "common/rule_classifier.hh"

namespace obi::blocks {

struct MultiClassifier::Impl {
  std::vector<RuleClassifier> sets;
};

MultiClassifier::MultiClassifier() : impl_(std::make_unique<Impl>()) {}
MultiClassifier::~MultiClassifier() = default;

void MultiClassifier::compile(std::vector<std::vector<openbox::HeaderMatch>> sets) {
  impl_->sets.clear();
  impl_->sets.resize(sets.size());
  for (size_t k = 0; k < sets.size(); ++k) impl_->sets[k].compile(std::move(sets[k]));
}

unsigned MultiClassifier::set_count() const { return static_cast<unsigned>(impl_->sets.size()); }
uint32_t MultiClassifier::rule_count(unsigned set) const { return impl_->sets[set].rule_count(); }
const openbox::HeaderMatch& MultiClassifier::rule(unsigned set, uint32_t i) const { return impl_->sets[set].rule(i); }

void MultiClassifier::classify_batch(Packet* const* pkts, uint32_t n, int32_t* out) const {
  const unsigned k = set_count();
  int32_t one[kBatchSize];
  for (unsigned s = 0; s < k; ++s) {
    impl_->sets[s].classify_batch(pkts, n, one);
    for (uint32_t i = 0; i < n; ++i) out[i * k + s] = one[i];
  }
}

const char* MultiClassifier::engine() const { return "bitvector"; }

}  // namespace obi::blocks
