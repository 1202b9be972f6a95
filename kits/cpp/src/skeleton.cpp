// The skeleton a vendor starts from: it declares no op, so the harness sends it none and reports
// every vector unsupported. Implement an op by overriding its method of tablecert::Vendor and
// naming the op in ops() (see example_craps.cpp for craps.place_odds and craps.settle).
#include "tablecert_vendor.hpp"

class MyVendor : public tablecert::Vendor {
public:
    tablecert::Json implementation() const override {
        return {{"name", "my table game"}, {"version", "0.1"}, {"build", "dev"}};
    }
    std::vector<std::string> ops() const override { return {}; }
};

int main() {
    MyVendor vendor;
    return tablecert::serve(vendor);
}
