#include "attention/qkv_capture.h"

namespace saccade {
namespace {
thread_local QkvCapture* t_capture = nullptr;
}

QkvCapture::QkvCapture() : m_previous(t_capture) { t_capture = this; }

QkvCapture::~QkvCapture() { t_capture = m_previous; }

void QkvCapture::record(const std::string& name, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& keep) {
    if (!t_capture) return;
    t_capture->m_layers.push_back({name, q.detach(), k.detach(), v.detach(), keep.defined() ? keep.detach() : keep});
}

}  // namespace saccade
