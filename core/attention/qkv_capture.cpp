#include "attention/qkv_capture.h"

namespace saccade {
namespace {
thread_local QkvCapture* t_capture = nullptr;
}

QkvCapture::QkvCapture(bool decoder) : m_previous(t_capture), m_decoder(decoder) { t_capture = this; }

QkvCapture::~QkvCapture() { t_capture = m_previous; }

void QkvCapture::record(const std::string& name, const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& keep, QkvKind kind) {
    if (!t_capture || (kind != QkvKind::Self && !t_capture->m_decoder)) return;
    t_capture->m_layers.push_back({name, q.detach(), k.detach(), v.detach(), keep.defined() ? keep.detach() : keep, kind});
}

}  // namespace saccade
