-- TPC-H Q4: order priority checking (spec 2.4.4; DATE = 1993-07-01). A correlated EXISTS:
-- a semi join of orders with the late lines.
SELECT o_orderpriority, count(*) AS order_count
FROM {orders}
WHERE o_orderdate >= DATE '1993-07-01'
  AND o_orderdate < DATE '1993-07-01' + INTERVAL '3' MONTH
  AND EXISTS (SELECT * FROM {lineitem}
              WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority
ORDER BY o_orderpriority
