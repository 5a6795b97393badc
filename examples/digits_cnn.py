"""A small CNN on scikit-learn's digits (8x8 images of 0-9), trained the PyTorch way with fgrad:
nn.Conv2d, nn.MaxPool2d, DataLoader, AdamW, a learning-rate schedule, a tqdm progress bar, and
checkpoints through state_dict and fgrad.save/fgrad.load. Read it beside torch's tutorials:
with `import torch` in place of `import fgrad as torch` it is the same program.

    python examples/digits_cnn.py                       # 15 epochs: 96.4% test accuracy, about 8 s (2 cores)
    python examples/digits_cnn.py --epochs 4 --checkpoint ck.pt
    python examples/digits_cnn.py --epochs 8 --checkpoint ck.pt --resume   # continues at epoch 5

(needs the [examples] extra: scikit-learn, tqdm)
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

import fgrad as torch
from fgrad import nn
from fgrad.utils.data import DataLoader, TensorDataset


def make_model(dtype=torch.float32):
    """Two conv blocks (8x8 -> 4x4 -> 2x2) and a linear classifier."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    ).to(dtype)


def load_data(dtype=np.float32, test_fraction=0.25, seed=0):
    """(train images, train labels, test images, test labels): images (N, 1, 8, 8) in [0, 1], a fixed split."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(dtype)[:, None]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        predicted = model(torch.tensor(images)).argmax(dim=1).numpy()
    model.train()
    return float((predicted == labels).mean())


def train_step(model, optimizer, loss_fn, images, labels):
    """One step of the loop, written against torch's API (tests run it in fgrad and in torch)."""
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def train(epochs=15, batch_size=64, lr=3e-3, weight_decay=1e-4, seed=0, dtype=np.float32, checkpoint=None,
          resume=False, progress=True, stop_after=None):
    """Train for `epochs` (counting those of a resumed checkpoint; stop_after=k stops after epoch k,
    as an interrupted run would); returns {"losses": the losses of the steps run here, "accuracy":
    the final test accuracy, "seconds": the training time}."""
    torch.manual_seed(seed)
    x_train, y_train, x_test, y_test = load_data(dtype)
    model = make_model(getattr(torch, np.dtype(dtype).name))
    generator = torch.Generator().manual_seed(seed)
    loader = DataLoader(TensorDataset(torch.tensor(x_train), torch.tensor(y_train)), batch_size=batch_size,
                        shuffle=True, generator=generator)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss()
    start = 0
    if resume:
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        generator.set_state(state["generator"])  # the next epochs shuffle as they would have
        start = state["epoch"]
    losses, began = [], time.perf_counter()
    for epoch in range(start, epochs):
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{epochs}", disable=not progress, leave=False)
        for images, labels in bar:
            losses.append(train_step(model, optimizer, loss_fn, images, labels))
            bar.set_postfix(loss=f"{losses[-1]:.4f}", lr=f"{scheduler.get_last_lr()[0]:.2e}")
        scheduler.step()
        if checkpoint is not None:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "generator": generator.get_state(), "epoch": epoch + 1},
                       checkpoint)
        if progress:
            tqdm.write(f"epoch {epoch + 1}: loss {np.mean(losses[-len(loader):]):.4f}, test accuracy "
                       f"{accuracy(model, x_test, y_test):.4f}")
        if stop_after is not None and epoch + 1 == stop_after:
            break
    return {"losses": losses, "accuracy": accuracy(model, x_test, y_test), "seconds": time.perf_counter() - began}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", default=None, help="save a checkpoint here after every epoch")
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    args = parser.parse_args()
    result = train(args.epochs, args.batch_size, args.lr, seed=args.seed, checkpoint=args.checkpoint,
                   resume=args.resume)
    print(f"test accuracy {result['accuracy']:.4f} after {args.epochs} epochs ({result['seconds']:.1f} s of training)")


if __name__ == "__main__":
    main()
